package realtime

import (
	"os"

	"github.com/simrt/simrt"
)

// Main runs root as the root task of a runtime for cfg, as Runner.Start
// does, and then ends the process the way a program's main ends, with
// os.Exit:
//
//   - status 1 if the runtime cannot be set up (see Runner.Start) or root
//     returns an error; the error is logged to Config.Logger first;
//   - otherwise the value given to the first ctx.Stop of the run (130 after
//     SIGINT and 143 after SIGTERM with StopOnSignal), or 0 if nobody
//     called Stop. The operating system keeps the low 8 bits of it.
//
// A task panic that Start re-raises (see Config.CatchPanics) ends the
// process as an unrecovered panic does, after the shutdown. Main never
// returns; call it once, from main, after everything else main must do.
func Main(cfg Config, root func(ctx simrt.Context) error) {
	os.Exit(exitCode(cfg, root))
}

// exitCode is Main without the exit.
func exitCode(cfg Config, root func(ctx simrt.Context) error) int {
	r := New(cfg)
	log := r.cfg.Logger
	var rootErr error
	stop, err := r.Start(func(ctx simrt.Context) { rootErr = root(ctx) })
	switch {
	case err != nil:
		log.Error("realtime: cannot start", "err", err)
		return 1
	case rootErr != nil:
		log.Error("realtime: root task failed", "err", rootErr)
		return 1
	}
	return stop
}
