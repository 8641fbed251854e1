package realtime

import (
	"fmt"
	"path"
	"reflect"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A production process whose tasks ignore ctx.Stopped() must not ignore
// a SIGTERM silently. When the first ctx.Stop of a run is given a timeout
// and the run is still going once it has expired (the root has not
// returned, or the shutdown still waits for tasks), whether Stop timed out
// waiting for the tasks that took the stop signal or returned at once
// because none did, the runtime logs at WARN that tasks are still running
// and how many, and then one WARN record per task it can locate, with the
// call it is blocked in and its stack cut to the user's frames. A task is
// located by its goroutine's profiler labels (simrt_task=<name>,
// interrupt.go): those of the tasks that have blocked through the runtime
// (or started once it opened network resources). A task that never did
// (one blocked in a native call from the start) is counted, not located.

// armStopReport arms, at the first Stop with a positive timeout, the report
// of the tasks still running when that timeout expires.
func (rt *runtime) armStopReport(value int, timeout time.Duration) {
	if timeout <= 0 || rt.stopReport.Load() != nil {
		return
	}
	t := time.AfterFunc(timeout, func() { // wall clock: production
		if !rt.sh.Finished() {
			rt.reportRunning(value, timeout)
		}
	})
	if !rt.stopReport.CompareAndSwap(nil, t) {
		t.Stop() // another Stop armed it first
	}
}

// disarmStopReport stops the report's timer, once the run has ended.
func (rt *runtime) disarmStopReport() {
	if t := rt.stopReport.Load(); t != nil {
		t.Stop()
	}
}

// reportRunning logs the tasks still running timeout after a Stop with
// value.
func (rt *runtime) reportRunning(value int, timeout time.Duration) {
	names := rt.marked.names()
	var prof strings.Builder
	var stuck []stuckTask
	if err := pprof.Lookup("goroutine").WriteTo(&prof, 1); err == nil {
		stuck = stuckTasks(prof.String(), names)
	}
	rt.log.Warn("realtime: tasks still running after Stop's timeout; the process goes on "+
		"(wait on ctx.Stopped() and return from the root to stop)",
		"value", value, "timeout", timeout, "running", rt.running(), "located", len(stuck))
	for _, s := range stuck {
		rt.log.Warn("realtime: task still running after Stop's timeout",
			"task", s.name, "blocked_in", s.in, "stack", s.stack)
	}
}

// running counts the run's tasks: the task goroutines (and spawns in
// flight), and the root until it returns.
func (rt *runtime) running() int64 {
	n := rt.live.Load()
	if !rt.closing.Load() {
		n++
	}
	return n
}

// names returns the names of the marked tasks, each once.
func (r *markedTasks) names() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]bool, len(r.mu.m))
	for _, t := range r.mu.m {
		out[t.name()] = true
	}
	return out
}

// stuckTask is a located task: its name, the call it is blocked in and
// its user's frames.
type stuckTask struct{ name, in, stack string }

// stuckTasks finds in the goroutine profile (debug=1 text) the goroutines
// labelled simrt_task=<one of names> that wait (are parked in the Go
// runtime), in the profile's order.
func stuckTasks(profile string, names map[string]bool) []stuckTask {
	var out []stuckTask
	for _, rec := range strings.Split(profile, "\n\n") {
		_, rest, _ := strings.Cut(rec, "\n")
		labels, _, _ := strings.Cut(rest, "\n")
		name, ok := taskLabel(labels)
		if !ok || !names[name] {
			continue
		}
		frames := profileFrames(rec)
		if len(frames) == 0 {
			continue
		}
		s := stuckTask{name: name}
		var b strings.Builder
		for i, f := range frames {
			if !userFrame(f.fn, f.file) {
				continue
			}
			if s.in == "" && i > 0 {
				s.in = frames[i-1].fn // what the user's innermost frame called
			}
			fmt.Fprintf(&b, "%s %s; ", f.fn, f.file)
		}
		s.stack = strings.TrimSuffix(b.String(), "; ")
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b stuckTask) int { return strings.Compare(a.name, b.name) })
	return out
}

// taskLabel returns the simrt_task label of a profile record's labels line
// ("# labels: {...}").
func taskLabel(line string) (string, bool) {
	const key = `"simrt_task":`
	rest, ok := strings.CutPrefix(line, "# labels: {")
	if !ok {
		return "", false
	}
	i := strings.Index(rest, key)
	if i < 0 {
		return "", false
	}
	name, err := strconv.QuotedPrefix(rest[i+len(key):])
	if err != nil {
		return "", false
	}
	name, err = strconv.Unquote(name)
	return name, err == nil
}

// frame is one frame of a goroutine profile record.
type frame struct{ fn, file string }

// profileFrames returns the frames of a profile record, innermost first
// ("#\t0xpc\tfunction+0xoff\tfile:line" lines).
func profileFrames(rec string) []frame {
	var out []frame
	for _, line := range strings.Split(rec, "\n") {
		if !strings.HasPrefix(line, "#\t0x") {
			continue
		}
		f := strings.Fields(line) // "#", pc, function+offset, file:line
		if len(f) != 4 {
			continue
		}
		fn := f[2]
		if i := strings.LastIndex(fn, "+0x"); i >= 0 {
			fn = fn[:i]
		}
		out = append(out, frame{fn, f[3]})
	}
	return out
}

// moduleDir is the directory of simrt's sources as the binary's frames
// name them, the parent of this file's.
var moduleDir = func() string {
	_, file, _, _ := goruntime.Caller(0)
	return path.Dir(path.Dir(file)) + "/"
}()

// goSrc is the directory of the standard library's sources as the
// binary's frames name them.
var goSrc = func() string {
	f := goruntime.FuncForPC(reflect.ValueOf(strings.Cut).Pointer())
	if f == nil {
		return "\x00" // matches no file
	}
	file, _ := f.FileLine(f.Entry())
	return path.Dir(path.Dir(file)) + "/"
}()

// userFrame reports whether the frame of function fn at file (file:line)
// is the user's: not the standard library's or simrt's own machinery (its
// non-test sources outside examples and cmd).
func userFrame(fn, file string) bool {
	if strings.HasPrefix(file, goSrc) {
		return false
	}
	rel, ok := strings.CutPrefix(file, moduleDir)
	if !ok {
		return true
	}
	name, _, _ := strings.Cut(rel, ":")
	return strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "examples/") || strings.HasPrefix(name, "cmd/")
}
