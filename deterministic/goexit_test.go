package deterministic

import goruntime "runtime"

func goexit() { goruntime.Goexit() }
