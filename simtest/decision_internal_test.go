package simtest

import (
	"math"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic/decision"
)

// TestDecisionStringSaysWhatItMeant: a decision prints what it decided
// (whether the task yielded, which order the ready list kept), not only
// its kind and raw bits.
func TestDecisionStringSaysWhatItMeant(t *testing.T) {
	for _, c := range []struct {
		d    decision.Decision
		want string
	}{
		{decision.Decision{Kind: decision.KindYield, Value: 0x0268000000000000}, "the task yielded"},
		{decision.Decision{Kind: decision.KindYield, Value: math.MaxUint64}, "the task went on"},
		{decision.Decision{Kind: decision.KindSpawn, Value: 1 << 62}, "the creator went on"},
		{decision.Decision{Kind: decision.KindSchedule, Value: math.MaxUint64}, "ready list: a shuffle step that keeps the order"},
		{decision.Decision{Kind: decision.KindSchedule, Value: 0x2f53000000000000}, "ready list: a shuffle step, draw 0.1849"},
		{decision.Decision{Kind: decision.KindSelect, Value: 1}, "Select: tries its first case first"},
	} {
		got := decisionString(c.d)
		if !strings.Contains(got, c.want) || !strings.Contains(got, c.d.Kind.String()+" 0x") {
			t.Errorf("decisionString(%v) = %q, want %q and the raw value", c.d, got, c.want)
		}
	}
}
