package faulty_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
)

func Example() {
	mem := memory.New()
	fs := faulty.New(mem, rand.New(rand.NewPCG(1, 2)), faulty.Config{
		// Unsynced writes survive a crash whole.
		Write: faulty.WriteConfig{RetentionRate: 1},
	})
	b, _, _ := fs.Open("p", []byte("log"))
	_ = b.WriteAt(0, 0, []byte("kept by retention"))

	fs.Config().SyncRate = 1 // from now on every sync fails
	err := b.Sync()
	fmt.Println(errors.Is(err, faulty.ErrInjected), errors.Is(err, simrt.ErrIO))

	_ = fs.Crash()
	data, _ := mem.LogicalBlob("p", []byte("log"))
	fmt.Printf("%s\n", data)
	// Output:
	// true true
	// kept by retention
}
