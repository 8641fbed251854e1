package supervise

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/simrt/simrt/telemetry/metrics"
)

// The rules for naming contexts. A context's name is the chain of the
// labels its Child calls gave, joined by "_"; its attributes are constant
// metric labels. Both runtimes name their contexts through these
// functions, so a name that one runtime refuses the other refuses too.

// ValidateLabel panics unless label matches [a-zA-Z][a-zA-Z0-9_]*, with a
// message that names the label and the rule.
func ValidateLabel(label string) {
	if label == "" || !isLetter(label[0]) {
		panic("label must start with [a-zA-Z]: " + label)
	}
	for i := 1; i < len(label); i++ {
		c := label[i]
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '_' {
			panic("label must only contain [a-zA-Z0-9_]: " + label)
		}
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// ChildName validates label and joins it below the context name parent. It
// panics if the joined name starts with the prefix reserved for the
// runtime's own metrics (metrics.Prefix).
func ChildName(parent, label string) string {
	ValidateLabel(label)
	full := metrics.JoinName(parent, label)
	if strings.HasPrefix(full, metrics.Prefix) {
		panic("using runtime label is not allowed")
	}
	return full
}

// WithAttr returns attrs with key set to value, sorted by key; an existing
// key has its value replaced. The key follows the rules of ValidateLabel;
// the value must be valid UTF-8, as Prometheus requires of every label
// value (client_golang refuses the metric otherwise, and the refusal would
// surface only at the first metric registered, as an inconsistent type).
// attrs is not modified.
func WithAttr(attrs []metrics.Attr, key, value string) []metrics.Attr {
	ValidateLabel(key)
	if !utf8.ValidString(value) {
		panic(fmt.Sprintf("attribute value must be valid UTF-8: %s=%q", key, value))
	}
	out := make([]metrics.Attr, 0, len(attrs)+1)
	done := false
	for _, a := range attrs {
		switch {
		case a.Key == key:
			out = append(out, metrics.Attr{Key: key, Value: value})
			done = true
		case !done && a.Key > key:
			out = append(out, metrics.Attr{Key: key, Value: value}, a)
			done = true
		default:
			out = append(out, a)
		}
	}
	if !done {
		out = append(out, metrics.Attr{Key: key, Value: value})
	}
	return out
}
