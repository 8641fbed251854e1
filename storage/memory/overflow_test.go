package memory_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/memory"
)

// A write or resize past memory.MaxSize fails with ErrOffsetOverflow in an
// error that says so: the end fits in a uint64, so "offset overflow" alone
// would contradict the Blob doc.
func TestWritePastMaxSizeSaysSo(t *testing.T) {
	b, _, err := memory.New().Open("p", []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		err  error
	}{
		{"WriteAt(1<<40)", b.WriteAt(1<<40, 0, []byte("x"))},
		{"Resize(1<<40)", b.Resize(1 << 40)},
	} {
		what, err := c.what, c.err
		if !errors.Is(err, simrt.ErrOffsetOverflow) || !strings.Contains(err.Error(), "past memory.MaxSize (4294967296)") {
			t.Errorf("%s = %v; want ErrOffsetOverflow saying it is past memory.MaxSize", what, err)
		}
	}
	if err := b.WriteAt(1<<64-1, 0, []byte("xy")); !errors.Is(err, simrt.ErrOffsetOverflow) {
		t.Errorf("a write whose end overflows uint64: %v", err)
	}
}
