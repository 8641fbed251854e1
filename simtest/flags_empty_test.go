package simtest

import (
	"strings"
	"testing"
)

// An empty -simrt.seeds (or seed, or shard) is an error saying what is
// wanted, not the default sweep; a bad seed says what a seed is, as the
// simrt command does.
func TestEmptyAndBadSeedFlags(t *testing.T) {
	for _, c := range []struct {
		name, value, want string
	}{
		{"seeds", "", "-simrt.seeds is empty: want a list of N and A..B"},
		{"seeds", "  ", "-simrt.seeds is empty"},
		{"seed", "", "-simrt.seed is empty: a seed is a number from 0 to 18446744073709551615"},
		{"shard", "", "-simrt.shard is empty: want i/n"},
		{"seed", "-1", `-simrt.seed="-1": a seed is a number from 0 to 18446744073709551615`},
		{"seed", "18446744073709551616", "a seed is a number from 0 to 18446744073709551615"},
	} {
		_, err := resolve(func(s *setting) (string, bool) { return c.value, s.name == c.name })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-simrt.%s=%q: error %v, want one containing %q", c.name, c.value, err, c.want)
		}
	}
	// Left out, the settings take their defaults.
	if st, err := resolve(func(*setting) (string, bool) { return "", false }); err != nil || st.seeds != nil || st.hasSeed {
		t.Errorf("no flags: %+v, %v", st, err)
	}
}
