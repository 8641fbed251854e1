package deterministic

import (
	"errors"
	"strings"
	"testing"
)

// mustVerdict runs f and fails unless it panics with the simulator's
// verdict want: a *Verdict matching want (errors.Is) and no other verdict,
// whose text still starts with want's text, as printed reports did when
// the verdicts were panic strings.
func mustVerdict(t *testing.T, want error, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		var v *Verdict
		err, ok := r.(error)
		if !ok || !errors.As(err, &v) {
			t.Fatalf("panic %v (%T); want a *Verdict matching %q", r, r, want)
		}
		other := ErrStalled
		if want == ErrStalled {
			other = ErrRunTimeout
		}
		if !errors.Is(err, want) || errors.Is(err, other) {
			t.Fatalf("verdict %v; want one matching %q only", err, want)
		}
		if !strings.HasPrefix(err.Error(), want.Error()+": ") {
			t.Fatalf("verdict text %q does not start with %q", err, want.Error()+": ")
		}
	}()
	f()
}
