package sites

import (
	"testing"

	"github.com/simrt/simrt"
)

func helperSite(ctx simrt.Context) { simrt.Reachable(ctx, "in a test file") }

func TestNothing(t *testing.T) {}
