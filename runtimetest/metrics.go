package runtimetest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/simrt/simrt"
)

var metricCases = []testCase{
	{"Metrics", "a metric's name is the context's label joined to its own: counter test from the root is test_total, from Child(\"nested\") nested_test_total", metricsNames},
	{"MetricsWithAttribute", "attributes become constant labels; each value is its own series under one family", metricsWithAttribute},
	{"MetricsAttributeWithNestedLabel", "attributes carry over to Child contexts", metricsAttributeWithNestedLabel},
	{"MetricsAttributesIsolatedBetweenContexts", "attributes belong to the context that set them and never leak to another context's metrics", metricsAttributesIsolatedBetweenContexts},
	{"MetricsSpawnAttributeCardinality", "task metrics are keyed by context label only (name, kind, execution): spawning from contexts with 128 attribute values gives one series", metricsSpawnAttributeCardinality},
	{"MetricsAttributesSortedDeterministically", "the order attributes were added in does not matter (and a key set again takes the new value): one series, one label order", metricsAttributesSortedDeterministically},
	{"MetricsNestedLabelsWithAttributes", "labels and attributes combine across several levels of Child", metricsNestedLabelsWithAttributes},
	{"MetricsFamilyWithAttributes", "a family's variable labels and the context's attributes appear together, sorted by name", metricsFamilyWithAttributes},
	{"RegisterAndEncode", "Encode writes counters, gauges and histograms with their TYPE lines and values", registerAndEncode},
	{"ReregisterReturnsExisting", "registering the same name, attributes and type again returns the collector already registered; another type panics", reregisterReturnsExisting},
	{"EncodeSingleEOF", "Encode ends with exactly one \"# EOF\" line", encodeSingleEOF},
	{"MetricNameValidation", "registering a metric whose full name is not a valid Prometheus name panics naming the metric", metricNameValidation},
	{"LabelValidation", "Child and WithAttribute panic on labels outside [a-zA-Z][a-zA-Z0-9_]*, on names starting with runtime and on attribute values that are not UTF-8", labelValidation},
}

// sample is one parsed sample line of the exposition text.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSamples parses the sample lines of an exposition text. Label values
// are assumed to hold no escaped characters.
func parseSamples(t T, text string) []sample {
	t.Helper()
	var out []sample
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s := sample{labels: map[string]string{}}
		rest := line
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			if j < i {
				t.Fatalf("malformed sample line %q", line)
			}
			s.name = line[:i]
			for _, pair := range splitLabels(line[i+1 : j]) {
				k, v, ok := strings.Cut(pair, "=")
				if !ok || len(v) < 2 {
					t.Fatalf("malformed label %q in %q", pair, line)
				}
				s.labels[k] = v[1 : len(v)-1]
			}
			rest = line[j+1:]
		} else {
			s.name, rest, _ = strings.Cut(line, " ")
			rest = " " + rest
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			t.Fatalf("sample line without a value: %q", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			t.Fatalf("sample line %q: %v", line, err)
		}
		s.value = v
		out = append(out, s)
	}
	return out
}

// splitLabels splits `a="x",b="y"` at the commas outside quotes.
func splitLabels(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// series names one series: a sample name and its labels as "k=v" pairs.
func series(name string, labels ...string) string {
	slices.Sort(labels)
	return name + "{" + strings.Join(labels, ",") + "}"
}

func (s sample) key() string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(s.labels)) {
		v := s.labels[k]
		if k == "le" { // bucket bounds print as 1 or 1.0 depending on the encoder
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				v = strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
		pairs = append(pairs, k+"="+v)
	}
	return series(s.name, pairs...)
}

// expectSeries checks that text holds each series in want with its value.
func expectSeries(t T, text string, want map[string]float64) {
	t.Helper()
	got := map[string]float64{}
	for _, s := range parseSamples(t, text) {
		got[s.key()] = s.value
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		v, ok := got[k]
		switch {
		case !ok:
			t.Errorf("series %s missing from Encode:\n%s", k, text)
		case v != want[k]:
			t.Errorf("series %s = %v, want %v", k, v, want[k])
		}
	}
}

// runningTasks sums runtime_tasks_running over the tasks (kind Task) whose
// name starts with prefix.
func runningTasks(t T, ctx simrt.Context, prefix string) int {
	t.Helper()
	n := 0.0
	for _, s := range parseSamples(t, ctx.Encode()) {
		if s.name == "runtime_tasks_running" && s.labels["kind"] == "Task" && strings.HasPrefix(s.labels["name"], prefix) {
			n += s.value
		}
	}
	return int(n)
}

func metricsNames(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		if l := ctx.Name().Label; l != "" {
			t.Errorf("root label = %q, want \"\"", l)
		}
		if l := ctx.Child("nested").Name().Label; l != "nested" {
			t.Errorf("Child(\"nested\") label = %q, want \"nested\"", l)
		}
		ctx.Counter("test", "a root counter").Inc()
		ctx.Child("nested").Counter("test", "a nested counter").Inc()
		expectSeries(t, ctx.Encode(), map[string]float64{
			series("test_total"):        1,
			series("nested_test_total"): 1,
		})
	})
}

func metricsWithAttribute(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		c := ctx.Child("consensus")
		c.WithAttribute("epoch", "e5").Counter("votes", "votes cast").Inc()
		c.WithAttribute("epoch", "e6").Counter("votes", "votes cast").Add(2)
		text := ctx.Encode()
		expectSeries(t, text, map[string]float64{
			series("consensus_votes_total", "epoch=e5"): 1,
			series("consensus_votes_total", "epoch=e6"): 2,
		})
		if n := strings.Count(text, "# TYPE consensus_votes "); n != 1 {
			t.Errorf("%d TYPE lines for consensus_votes, want 1:\n%s", n, text)
		}
	})
}

func metricsAttributeWithNestedLabel(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ctx.Child("orchestrator").WithAttribute("epoch", "e5").Child("engine").Counter("votes", "votes").Inc()
		expectSeries(t, ctx.Encode(), map[string]float64{
			series("orchestrator_engine_votes_total", "epoch=e5"): 1,
		})
	})
}

func metricsAttributesIsolatedBetweenContexts(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		a := ctx.Child("component_a").WithAttribute("epoch", "1")
		a.Counter("requests", "requests")
		b := ctx.Child("component_b")
		b.Counter("requests", "requests")
		a.Child("sub").Counter("requests", "requests")
		text := ctx.Encode()
		expectSeries(t, text, map[string]float64{
			series("component_a_requests_total", "epoch=1"):     0,
			series("component_b_requests_total"):                0,
			series("component_a_sub_requests_total", "epoch=1"): 0,
		})
		for _, s := range parseSamples(t, text) {
			if s.name == "component_b_requests_total" && len(s.labels) != 0 {
				t.Errorf("component_b's counter carries labels %v leaked from another context", s.labels)
			}
		}
	})
}

func metricsSpawnAttributeCardinality(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		verify := ctx.Child("deferred_verify")
		for round := range 128 {
			c := verify.WithAttribute("round", strconv.Itoa(round))
			if _, err := simrt.Spawn(c, func(simrt.Context) int { return round }).Await(ctx); err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		text := ctx.Encode()
		task := []string{"name=deferred_verify", "kind=Task", "execution=Shared"}
		expectSeries(t, text, map[string]float64{
			series("runtime_tasks_spawned_total", task...):                            128,
			series("runtime_tasks_running", task...):                                  0,
			series("runtime_tasks_running", "name=", "kind=Root", "execution=Shared"): 1,
		})
		if strings.Contains(text, "round=") {
			t.Errorf("task metrics carry the round attribute:\n%s", text)
		}
	})
}

func metricsAttributesSortedDeterministically(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		s := ctx.Child("service")
		s.WithAttribute("region", "us").WithAttribute("env", "prod").Counter("errors", "errors").Inc()
		s.WithAttribute("env", "dev").WithAttribute("region", "us").WithAttribute("env", "prod").Counter("errors", "errors").Inc()
		text := ctx.Encode()
		expectSeries(t, text, map[string]float64{
			series("service_errors_total", "env=prod", "region=us"): 2,
		})
		if !strings.Contains(text, `service_errors_total{env="prod",region="us"}`) {
			t.Errorf("labels not printed in sorted order:\n%s", text)
		}
	})
}

func metricsNestedLabelsWithAttributes(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		inner := ctx.Child("outer").Child("middle").WithAttribute("region", "us").Child("inner").WithAttribute("az", "east")
		if got := inner.Name(); got.Label != "outer_middle_inner" || fmt.Sprint(got.Attributes) != "[{az east} {region us}]" {
			t.Errorf("Name() = %q %v, want \"outer_middle_inner\" [{az east} {region us}]", got.Label, got.Attributes)
		}
		inner.Counter("requests", "requests").Add(2)
		expectSeries(t, ctx.Encode(), map[string]float64{
			series("outer_middle_inner_requests_total", "az=east", "region=us"): 2,
		})
	})
}

func metricsFamilyWithAttributes(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		api := ctx.Child("api").WithAttribute("env", "prod").WithAttribute("region", "us_east")
		api.CounterVec("requests", "requests", "method", "status").WithLabelValues("GET", "200").Inc()
		batcher := ctx.Child("batcher").WithAttribute("epoch", "1")
		batcher.CounterVec("votes", "votes", "peer").WithLabelValues("alice").Inc()
		text := ctx.Encode()
		expectSeries(t, text, map[string]float64{
			series("api_requests_total", "env=prod", "region=us_east", "method=GET", "status=200"): 1,
			series("batcher_votes_total", "epoch=1", "peer=alice"):                                 1,
		})
		// Prometheus prints all labels sorted by name (the reference puts
		// attributes first): this is the Go form.
		if !strings.Contains(text, `api_requests_total{env="prod",method="GET",region="us_east",status="200"}`) {
			t.Errorf("family labels not sorted by name:\n%s", text)
		}
	})
}

func registerAndEncode(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		m := ctx.Child("enc")
		m.Counter("c", "a counter").Add(7)
		m.Gauge("g", "a gauge").Set(-3)
		m.Histogram("h", "a histogram", []float64{0.1, 1.0}).Observe(0.5)
		text := ctx.Encode()
		expectSeries(t, text, map[string]float64{
			series("enc_c_total"):             7,
			series("enc_g"):                   -3,
			series("enc_h_bucket", "le=0.1"):  0,
			series("enc_h_bucket", "le=1"):    1,
			series("enc_h_bucket", "le=+Inf"): 1,
			series("enc_h_sum"):               0.5,
			series("enc_h_count"):             1,
		})
		for _, line := range []string{"# TYPE enc_c counter", "# TYPE enc_g gauge", "# TYPE enc_h histogram"} {
			if !strings.Contains(text, line+"\n") {
				t.Errorf("Encode lacks %q:\n%s", line, text)
			}
		}
	})
}

func reregisterReturnsExisting(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ctx.Child("a").Counter("test", "a test counter").Inc()
		ctx.Child("a").Counter("test", "a test counter").Add(2)
		expectSeries(t, ctx.Encode(), map[string]float64{series("a_test_total"): 3})
		v := catchPanic(func() { ctx.Child("a").Gauge("test", "a test counter") })
		if s, _ := v.(string); !strings.HasPrefix(s, "duplicate metric `a_test`") {
			t.Errorf("registering a_test again as a gauge panicked with %v, want \"duplicate metric `a_test` ...\"", v)
		}
	})
}

func encodeSingleEOF(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ctx.Counter("first", "first").Inc()
		ctx.Child("second").Gauge("g", "g").Set(1)
		for range 2 {
			text := ctx.Encode()
			if !strings.HasSuffix(text, "# EOF\n") || strings.Count(text, "# EOF") != 1 {
				t.Errorf("Encode does not end with exactly one # EOF line:\n%s", text)
			}
		}
	})
}

func labelValidation(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		for _, c := range []struct {
			f    func()
			want string
		}{
			{func() { ctx.Child("") }, "label must start with [a-zA-Z]: "},
			{func() { ctx.Child("1abc") }, "label must start with [a-zA-Z]: 1abc"},
			{func() { ctx.Child("a-b") }, "label must only contain [a-zA-Z0-9_]: a-b"},
			{func() { ctx.Child("runtime") }, "using runtime label is not allowed"},
			{func() { ctx.Child("runtimes") }, "using runtime label is not allowed"},
			{func() { ctx.WithAttribute("_k", "v") }, "label must start with [a-zA-Z]: _k"},
			{func() { ctx.WithAttribute("k.v", "v") }, "label must only contain [a-zA-Z0-9_]: k.v"},
			{func() { ctx.WithAttribute("k", "\xff") }, `attribute value must be valid UTF-8: k="\xff"`},
		} {
			if v := catchPanic(c.f); v != c.want {
				t.Errorf("panic = %v, want %q", v, c.want)
			}
		}
		if v := catchPanic(func() { ctx.Child("foo").Child("runtime") }); v != nil {
			t.Errorf("Child(\"foo\").Child(\"runtime\") panicked with %v; only a full name starting with runtime is reserved", v)
		}
	})
}

func metricNameValidation(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		for _, c := range []struct {
			f    func()
			name string
		}{
			{func() { ctx.Counter("a b", "") }, "a b"},
			{func() { ctx.Child("x").Gauge("a-b", "") }, "x_a-b"},
			{func() { ctx.Histogram("", "", nil) }, ""},
			{func() { ctx.CounterVec("9a", "", "l") }, "9a"},
		} {
			want := "metric `" + c.name + "`: invalid name"
			if v, _ := catchPanic(c.f).(string); !strings.HasPrefix(v, want) {
				t.Errorf("registering %q panicked with %q, want %q...", c.name, v, want)
			}
		}
		ctx.Counter("ok:a_9", "a valid name").Inc() // colons are allowed
		// Variable label names: checked at registration, not rewritten
		// ("a-b" exposed as "a_b") or refused with a misleading message.
		for _, c := range []struct {
			f     func()
			label string
		}{
			{func() { ctx.CounterVec("c1", "", "a-b") }, "a-b"},
			{func() { ctx.GaugeVec("g1", "", "ok", "9a") }, "9a"},
			{func() { ctx.HistogramVec("h1", "", nil, "__name") }, "__name"},
			{func() { ctx.CounterVec("c2", "", "") }, ""},
		} {
			want := "invalid label name `" + c.label + "`: must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __"
			if v, _ := catchPanic(c.f).(string); !strings.HasSuffix(v, want) {
				t.Errorf("a Vec with label %q panicked with %q, want ...%q", c.label, v, want)
			}
		}
		ctx.CounterVec("ok_vec", "valid labels", "_a", "b9").WithLabelValues("x", "y").Inc()
	})
}
