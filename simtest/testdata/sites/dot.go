package sites

import . "github.com/simrt/simrt"

// Dot uses a dot import.
func Dot(ctx Context) { Reachable(ctx, "dot import") }
