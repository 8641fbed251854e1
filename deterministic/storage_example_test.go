package deterministic_test

import (
	"fmt"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// Storage survives the crash that ends every run, but only what was synced.
func ExampleContext_Open() {
	cp := deterministic.New(deterministic.Config{Seed: 1}).StartAndRecover(func(ctx *deterministic.Context) {
		b, _, _ := ctx.Open("db", []byte("wal"))
		_ = b.WriteAt(0, 0, []byte("synced"))
		_ = b.Sync()
		_ = b.WriteAt(6, 0, []byte(" and lost"))
	})
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		b, size, _ := ctx.Open("db", []byte("wal"))
		p := make([]byte, size)
		_ = b.ReadAt(p, 0)
		fmt.Printf("%q\n", p)
	})
	// Output: "synced"
}

// The fault configuration can change while the simulation runs. A failed
// sync poisons its handle, as on disk: the kernel may have dropped the
// pages it could not write, so only a reopen (and a read of what is really
// there) clears it.
func ExampleContext_StorageFaultConfig() {
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		b, _, _ := ctx.Open("db", []byte("wal"))
		ctx.StorageFaultConfig().SyncRate = 1
		fmt.Println(b.Sync())
		ctx.StorageFaultConfig().SyncRate = 0
		fmt.Println(b.Sync())
		_ = b.Close()
		b, _, _ = ctx.Open("db", []byte("wal"))
		fmt.Println(b.WriteAt(0, simrt.WriteSync, []byte("x")))
	})
	// Output:
	// io error: injected storage fault
	// io error: injected storage fault
	// <nil>
}
