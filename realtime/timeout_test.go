package realtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/realtime"
)

// A negative Config.Timeout is a misuse New reports by name. (What a
// timeout does is runtimetest's RunTimeout case.)
func TestNegativeTimeoutPanics(t *testing.T) {
	v := catch(func() { realtime.New(realtime.Config{Timeout: -time.Second}) })
	if s, _ := v.(string); !strings.Contains(s, "Config.Timeout") {
		t.Errorf("panic = %v, want one naming Config.Timeout", v)
	}
}
