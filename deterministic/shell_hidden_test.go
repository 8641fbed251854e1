package deterministic_test

import (
	"reflect"
	"testing"

	"github.com/simrt/simrt/deterministic"
)

// TestShellNotReachableFromContext: the simulator's Context offers its
// users the simrt.Context methods and its own, nothing of the shell it is
// built on (no Init, Scope or Supervisor, no exported shell field through
// which ctx.Scope().Runtime().Backend() would compile).
func TestShellNotReachableFromContext(t *testing.T) {
	typ := reflect.TypeFor[*deterministic.Context]()
	for _, name := range []string{"Init", "Scope", "Supervisor"} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("*deterministic.Context has method %s of the shell", name)
		}
	}
	for f := range typ.Elem().Fields() {
		if f.IsExported() {
			t.Errorf("deterministic.Context has exported field %s (%v)", f.Name, f.Type)
		}
	}
}
