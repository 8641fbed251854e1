package nemesis_test

import (
	"strings"
	"testing"

	"github.com/simrt/simrt/nemesis"
)

// TestEmptyScheduleSaysEmpty: an empty file (or one of blank lines and
// comments) is reported as empty, not at "line 0".
func TestEmptyScheduleSaysEmpty(t *testing.T) {
	for _, data := range []string{"", "\n# nothing\n\n"} {
		_, err := nemesis.ParseSchedule([]byte(data))
		if err == nil || strings.Contains(err.Error(), "line 0") || !strings.Contains(err.Error(), "the schedule is empty") {
			t.Errorf("ParseSchedule(%q) = %v, want \"the schedule is empty\"", data, err)
		}
	}
}

// TestScheduleTextOfEveryKind pins the schedule file's spelling of every
// built-in kind and its parameters: a file written before the kinds moved
// into the kind table parses, and is written back byte for byte.
func TestScheduleTextOfEveryKind(t *testing.T) {
	const text = `100ms partition {n1} | {n2,n3} for 1s
200ms bridge {n1,n2} | {n1,n3} for 1s
300ms isolate {n2} for 1s
400ms cut {n1} -> {n3} for 1s
500ms clog {n3} -> {n1} for 1s
600ms latency {n1} 40ms jitter 5ms for 1s
700ms loss {n2} 0.25 for 1s
800ms kill {n1} for 1s
900ms poweroff {n2} for 1s
1s pause {n3} for 1s
1.1s clock-offset {n1} +1.5s for 1s
1.2s clock-drift {n2} -0.0003 for 1s
1.3s clock-jump {n3} -200ms for 1s
1.4s disk-slow {n1} 7ms for 1s
1.5s disk-fail {n2} for 1s
1.6s disk-full {n3} for 1s
1.7s disk-readonly {n1} for 1s
1.8s power-loss {n1,n2,n3} for 1s
10s heal
`
	s, err := nemesis.ParseSchedule([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Kinds()) != len(nemesis.Kinds()) {
		t.Fatalf("the text uses %v, not every kind %v", s.Kinds(), nemesis.Kinds())
	}
	if got := s.String(); got != text {
		t.Fatalf("written back:\n%s\nwant:\n%s", got, text)
	}
}
