package decision

import "testing"

func TestKindDefault(t *testing.T) {
	for k := KindSchedule; k <= KindBuggify; k++ {
		d := Decision{Kind: k, Value: k.Default()}
		if !d.IsDefault() {
			t.Errorf("%v: its default is not IsDefault", k)
		}
		if (Decision{Kind: k, Value: 12345}).IsDefault() {
			t.Errorf("%v: 12345 counted as default", k)
		}
	}
}
