package inner

import "github.com/simrt/simrt"

// An imported package's tests are not scanned.
func testOnly(ctx simrt.Context) { simrt.Reachable(ctx, "inner test file") }
