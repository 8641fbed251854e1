package metrics

import "fmt"

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
