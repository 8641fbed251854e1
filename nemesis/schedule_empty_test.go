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
