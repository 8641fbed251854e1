package simtest

import (
	"io"
	"log"
	"runtime"
	"strings"
	"sync"
)

// Exits from inside a simulation. log.Fatal writes its message through the
// standard logger and then calls os.Exit(1), which ends the whole test
// process: a sweep of a thousand seeds would stop at the first seed whose
// system code gives up that way, without naming it. Go has no hook on
// os.Exit, but the message is written first, and through a writer that
// simtest chooses: while simulations run, the standard logger writes
// through trapWriter, which forwards every line to the writer that was set
// before, except the line of a log.Fatal (or a Logger's Fatal writing to
// it) called from a simulated task. That one it turns into a panic of
// *LogFatal, before os.Exit is reached: the task panics, its seed fails
// with the usual report and replay command, and the sweep goes on.
//
// What cannot be caught this way still ends the process: os.Exit called
// directly with a non-zero code (os.Exit(0) panics under go test, and is
// reported like any panic), and the Fatal of a Logger that writes
// elsewhere. Under go test -v the last "=== RUN .../seed=N" line names the
// seed; simrt sweep reports it as the seed's failure, with its replay
// command, and runs the chunk's remaining seeds in a new process.

// LogFatal is the panic value of a task that called log.Fatal (or Fatalf,
// Fatalln) while simtest ran its simulation; the seed fails with it, as
// with any panic, also when the runtime catches panics (CatchPanics).
type LogFatal struct {
	// Message is the logged line, without the date and time the
	// standard logger may prefix.
	Message string
}

// Error says that log.Fatal was called, and what it logged.
func (e *LogFatal) Error() string {
	return "log.Fatal called in a simulated task (it would have ended the test process): " + e.Message
}

// The trap is process-wide, as the standard logger is: it is installed
// while at least one simulation runs (sweeps run several at once, and
// tests may run in parallel) and the previous writer is put back when the
// last one ends.
var logTrap struct {
	sync.Mutex
	users int
	w     *trapWriter
}

// trapLogFatal installs the trap for one simulation and returns the
// function that releases it.
func trapLogFatal() (release func()) {
	logTrap.Lock()
	defer logTrap.Unlock()
	if logTrap.users == 0 {
		logTrap.w = &trapWriter{inner: log.Writer()}
		log.SetOutput(logTrap.w)
	}
	logTrap.users++
	return func() {
		logTrap.Lock()
		defer logTrap.Unlock()
		logTrap.users--
		if logTrap.users == 0 {
			if log.Writer() == io.Writer(logTrap.w) { // else the user has set another since
				log.SetOutput(logTrap.w.inner)
			}
			logTrap.w = nil
		}
	}
}

// trapWriter is the standard logger's writer while simulations run.
type trapWriter struct{ inner io.Writer }

// Write forwards p, or panics with *LogFatal if p is the line of a
// log.Fatal called from a simulated task. The logger holds its lock while
// it writes and releases it on the way out (a deferred Unlock).
func (w *trapWriter) Write(p []byte) (int, error) {
	if fatalFromTask() {
		panic(&LogFatal{Message: strings.TrimSuffix(stripLogTime(string(p)), "\n")})
	}
	return w.inner.Write(p)
}

// fatalFromTask reports whether the caller's stack holds a Fatal of
// package log (called from the logger writing) and, below it, a task of
// the simulator.
func fatalFromTask() bool {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	fatal := false
	for {
		f, more := frames.Next()
		switch fn := f.Function; {
		case !fatal && strings.HasPrefix(fn, "log.") && isFatal(fn):
			fatal = true
		case fatal && strings.HasPrefix(fn, "github.com/simrt/simrt/deterministic.(*task).run"):
			return true
		}
		if !more {
			return false
		}
	}
}

// isFatal reports whether fn, a function of package log, is one of its
// Fatal functions or methods.
func isFatal(fn string) bool {
	name := fn[strings.LastIndexByte(fn, '.')+1:]
	return name == "Fatal" || name == "Fatalf" || name == "Fatalln"
}

// stripLogTime drops the date and time the standard logger's flags put at
// the start of line (after the prefix, unless it is a message prefix), so
// that the failure reads the same in every run of a seed.
func stripLogTime(line string) string {
	flags := log.Flags()
	n := 0
	if flags&log.Ldate != 0 {
		n += len("2009/01/23 ")
	}
	if flags&(log.Ltime|log.Lmicroseconds) != 0 {
		n += len("01:23:23 ")
		if flags&log.Lmicroseconds != 0 {
			n += len(".123123")
		}
	}
	at := 0
	if flags&log.Lmsgprefix == 0 {
		at = len(log.Prefix())
	}
	if n == 0 || len(line) < at+n || !strings.HasPrefix(line, log.Prefix()[:at]) {
		return line
	}
	return line[:at] + line[at+n:]
}
