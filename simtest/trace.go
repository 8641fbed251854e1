package simtest

import (
	"bufio"
	"os"
	"strconv"

	"github.com/simrt/simrt/telemetry/audit"
	"github.com/simrt/simrt/telemetry/trace"
)

// writeTrace writes the trace-event file of one simulation.
func writeTrace(path string, seed uint64, events []audit.Event) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = trace.Write(w, events, trace.Options{Title: "simrt seed " + strconv.FormatUint(seed, 10)})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
