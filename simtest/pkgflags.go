package simtest

import (
	"flag"
	"os"
	"strings"
)

// packageFlags returns the arguments of this test process that belong to
// the package under test: every flag that is neither go test's (-test.*)
// nor simtest's (-simrt.*), with its value, then the arguments after the
// flags, in their order. The processes simtest starts to run a seed again
// (shrinking a stream or a schedule, the inevitability search) pass them
// on, so that a test whose behaviour depends on flags of its own (given
// after -args, or unknown to go test) runs there as it ran here.
func packageFlags() []string { return splitPackageFlags(os.Args[1:], flag.CommandLine) }

// splitPackageFlags is packageFlags over args, parsed with the flags of fs
// (a flag of fs that is not boolean takes the next argument as its value
// when it has no "=value").
func splitPackageFlags(args []string, fs *flag.FlagSet) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return append(out, args[i:]...) // the flags end here
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		hasValue := strings.Contains(name, "=")
		name, _, _ = strings.Cut(name, "=")
		n := 1 // arguments the flag takes up
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
			n = 2
		}
		if !strings.HasPrefix(name, "test.") && !strings.HasPrefix(name, "simrt.") {
			out = append(out, args[i:i+n]...)
		}
		i += n - 1
	}
	return out
}

// isBoolFlag reports whether f is set by its name alone, as -v.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
