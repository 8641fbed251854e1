package trace

import (
	"strings"
	"testing"

	"github.com/simrt/simrt/telemetry/audit"
)

// TestCategoryOfEveryLabel puts each audit label in the viewer category
// of the layer that records it: the storage close and the simnet
// host_reset used to fall through to "runtime".
func TestCategoryOfEveryLabel(t *testing.T) {
	storage := map[audit.Label]bool{
		audit.Open: true, audit.Remove: true, audit.Scan: true, audit.ReadAt: true, audit.WriteAt: true,
		audit.Resize: true, audit.Sync: true, audit.StartSync: true, audit.Close: true, audit.StorageDiskFault: true,
	}
	for _, l := range audit.All() {
		s := string(l)
		want := "runtime"
		switch {
		case storage[l]:
			want = "storage"
		case l == audit.Timer:
			want = "timer"
		case strings.HasPrefix(s, "net_"), l == audit.HostReset,
			strings.HasSuffix(s, "_attempt"), strings.HasSuffix(s, "_failure"), strings.HasSuffix(s, "_success"):
			want = "network"
		}
		if got := category(l); got != want {
			t.Errorf("category(%s) = %q, want %q", l, got, want)
		}
	}
	if got := category("user_event"); got != "runtime" {
		t.Errorf("category of an unknown label = %q, want runtime", got)
	}
}
