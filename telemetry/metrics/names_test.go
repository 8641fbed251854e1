package metrics

import (
	"fmt"
	"testing"
)

// Label names are checked as Prometheus defines them, with the metric and
// the label named in the panic; valid ones pass.
func TestValidateLabelNames(t *testing.T) {
	for _, c := range []struct {
		labels []string
		want   string // "" for valid
	}{
		{[]string{"a", "_b", "c9", "A_Z"}, ""},
		{[]string{"a-b"}, "metric `m`: invalid label name `a-b`: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __"},
		{[]string{"9a"}, "metric `m`: invalid label name `9a`: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __"},
		{[]string{"ok", "__x"}, "metric `m`: invalid label name `__x`: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __"},
		{[]string{""}, "metric `m`: invalid label name ``: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __"},
		{[]string{"é"}, "metric `m`: invalid label name `é`: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __"},
		{[]string{"a", "b", "a"}, "metric `m`: label name `a` given twice"},
	} {
		got := func() (r any) {
			defer func() { r = recover() }()
			ValidateLabelNames("m", c.labels)
			return nil
		}()
		if g := fmt.Sprint(got); c.want == "" && got != nil || c.want != "" && g != c.want {
			t.Errorf("ValidateLabelNames(%q) panicked with %v, want %q", c.labels, got, c.want)
		}
	}
	// Through the registry: refused at registration, before client_golang.
	r := New()
	got := func() (v any) {
		defer func() { v = recover() }()
		r.CounterVec("requests", "h", nil, "status-code")
		return nil
	}()
	if fmt.Sprint(got) != "metric `requests`: invalid label name `status-code`: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __" {
		t.Errorf("CounterVec with label status-code panicked with %v", got)
	}
}
