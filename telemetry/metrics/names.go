package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// ValidateMetricName panics unless name, a metric's full name, is a valid
// Prometheus metric name, [a-zA-Z_:][a-zA-Z0-9_:]*, with a message naming
// the metric and the rule. client_golang alone would accept any UTF-8
// name, which a classic Prometheus scraper refuses.
func ValidateMetricName(name string) {
	ok := name != ""
	for i := 0; i < len(name) && ok; i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || i > 0 && c >= '0' && c <= '9'
	}
	if !ok {
		panic(fmt.Sprintf("metric `%s`: invalid name: must match [a-zA-Z_:][a-zA-Z0-9_:]*", name))
	}
}

// ValidateLabelNames panics unless every one of labels, the variable
// labels of the metric family name, is a valid Prometheus label name,
// [a-zA-Z_][a-zA-Z0-9_]* and not starting with "__" (reserved for
// Prometheus's own labels), and no two are the same; the message names
// the metric, the label and the rule. client_golang alone would rewrite
// some invalid names on exposition ("a-b" to "a_b") and refuse others with
// a message about the metric's type.
func ValidateLabelNames(name string, labels []string) {
	for i, l := range labels {
		ok := l != "" && !strings.HasPrefix(l, "__")
		for j := 0; j < len(l) && ok; j++ {
			c := l[j]
			ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || j > 0 && c >= '0' && c <= '9'
		}
		if !ok {
			panic(fmt.Sprintf("metric `%s`: invalid label name `%s`: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __", name, l))
		}
		if slices.Contains(labels[:i], l) {
			panic(fmt.Sprintf("metric `%s`: label name `%s` given twice", name, l))
		}
	}
}
