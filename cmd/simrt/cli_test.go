package main

import (
	"bytes"
	"strings"
	"testing"
)

// A bad flag value is one line on stderr pointing at -h, exit 2, not the
// whole usage; -h prints the help, exit codes included, on stdout and
// exits 0, as go's own commands do.
func TestBadFlagIsOneLineAndHelpExitsZero(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "-seed", "-1"}, `simrt demo: invalid value "-1" for flag -seed: parse error; see simrt demo -h`},
		{[]string{"demo", "-nosuchflag"}, "simrt demo: flag provided but not defined: -nosuchflag; see simrt demo -h"},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "-parallel", "x"}, `simrt sweep: invalid value "x" for flag -parallel`},
		{[]string{"replay", "./testdata/sample", "-nosuchflag"}, "simrt replay: flag provided but not defined: -nosuchflag; see simrt replay -h"},
		{[]string{"vet", "./nosuchdir"}, "simrt vet: go list: "},
	} {
		var out, errb bytes.Buffer
		code := dispatch(c.args, &out, &errb)
		if code != 2 || out.Len() > 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", c.args, code, out.String(), errb.String(), c.want)
		}
	}
	for _, cmd := range []string{"demo", "sweep", "replay", "vet"} {
		var out, errb bytes.Buffer
		code := dispatch([]string{cmd, "-h"}, &out, &errb)
		if code != 0 || errb.Len() > 0 || !strings.HasPrefix(out.String(), "usage: simrt "+cmd) || !strings.Contains(out.String(), "exit codes: 0") {
			t.Errorf("%s -h: exit %d, stderr %q, stdout:\n%s\nwant 0 and the help with its exit codes on stdout", cmd, code, errb.String(), out.String())
		}
	}
}
