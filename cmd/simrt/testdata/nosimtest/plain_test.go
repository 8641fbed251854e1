// Package nosimtest has tests that do not use simtest: sweeping it is an
// error of one line.
package nosimtest

import "testing"

func TestPlain(t *testing.T) {}
