package deterministic

import (
	"errors"
	"testing"

	"github.com/simrt/simrt"
)

// Resolve("") fails saying the name is empty (simrt.ResolveError).
func TestResolveEmptyName(t *testing.T) {
	Seeded(1).Start(func(ctx *Context) {
		_, err := ctx.Resolve("")
		if !errors.Is(err, simrt.ErrResolveFailed) || err.Error() != "dns resolution failed: empty host name" {
			t.Errorf("Resolve(\"\") = %v", err)
		}
	})
}
