package metrics

import (
	"fmt"
	"strings"
)

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

// ChildLabel validates label and joins it below parent. It panics if the
// joined name starts with the reserved runtime prefix.
func ChildLabel(parent, label string) string {
	ValidateLabel(label)
	full := JoinName(parent, label)
	if strings.HasPrefix(full, Prefix) {
		panic("using runtime label is not allowed")
	}
	return full
}

// WithAttr returns attrs with key set to value, sorted by key; an existing
// key has its value replaced. attrs is not modified.
func WithAttr(attrs []Attr, key, value string) []Attr {
	ValidateLabel(key)
	out := make([]Attr, 0, len(attrs)+1)
	done := false
	for _, a := range attrs {
		switch {
		case a.Key == key:
			out = append(out, Attr{key, value})
			done = true
		case !done && a.Key > key:
			out = append(out, Attr{key, value}, a)
			done = true
		default:
			out = append(out, a)
		}
	}
	if !done {
		out = append(out, Attr{key, value})
	}
	return out
}

// String renders attrs as a readable list of key=value pairs, for messages.
func String(attrs []Attr) string { return fmt.Sprint(attrs) }

// ValidateMetricName panics unless name, a metric's full name, is a valid
// Prometheus metric name, [a-zA-Z_:][a-zA-Z0-9_:]*, with a message naming
// the metric and the rule. client_golang alone would accept any UTF-8
// name, which a classic Prometheus scraper refuses.
func ValidateMetricName(name string) {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isLetter(c) || c == '_' || c == ':' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		panic(fmt.Sprintf("metric `%s`: invalid name: must match [a-zA-Z_:][a-zA-Z0-9_:]*", name))
	}
	if name == "" {
		panic("metric ``: invalid name: must match [a-zA-Z_:][a-zA-Z0-9_:]*")
	}
}
