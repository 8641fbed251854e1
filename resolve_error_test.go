package simrt_test

import (
	"errors"
	"testing"

	"github.com/simrt/simrt"
)

// A failed lookup of the empty name says the name was empty, rather than
// ending in "failed: " with nothing after it.
func TestResolveErrorEmptyHost(t *testing.T) {
	for _, c := range []struct {
		err  *simrt.ResolveError
		want string
	}{
		{&simrt.ResolveError{}, "dns resolution failed: empty host name"},
		{&simrt.ResolveError{Err: errors.New("no such host")}, "dns resolution failed: empty host name: no such host"},
		{&simrt.ResolveError{Host: "db"}, "dns resolution failed: db"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}
