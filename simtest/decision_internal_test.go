package simtest

import (
	"math"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic"
)

// TestDecisionStringSaysWhatItMeant: a decision prints what it decided
// (whether the task yielded, which order the ready list kept), not only
// its kind and raw bits.
func TestDecisionStringSaysWhatItMeant(t *testing.T) {
	for _, c := range []struct {
		d    deterministic.Decision
		want string
	}{
		{deterministic.Decision{Kind: deterministic.KindYield, Value: 0x0268000000000000}, "the task yielded"},
		{deterministic.Decision{Kind: deterministic.KindYield, Value: math.MaxUint64}, "the task went on"},
		{deterministic.Decision{Kind: deterministic.KindSpawn, Value: 1 << 62}, "the creator went on"},
		{deterministic.Decision{Kind: deterministic.KindSchedule, Value: math.MaxUint64}, "ready list: a shuffle step that keeps the order"},
		{deterministic.Decision{Kind: deterministic.KindSchedule, Value: 0x2f53000000000000}, "ready list: a shuffle step, draw 0.1849"},
		{deterministic.Decision{Kind: deterministic.KindSelect, Value: 1}, "Select: tries its first case first"},
	} {
		got := decisionString(c.d)
		if !strings.Contains(got, c.want) || !strings.Contains(got, c.d.Kind.String()+" 0x") {
			t.Errorf("decisionString(%v) = %q, want %q and the raw value", c.d, got, c.want)
		}
	}
}
