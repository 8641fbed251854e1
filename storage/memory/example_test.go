package memory_test

import (
	"fmt"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/memory"
)

func Example() {
	s := memory.New()
	b, _, _ := s.Open("p", []byte("log"))
	_ = b.WriteAt(0, simrt.WriteSync, []byte("hello"))
	_ = b.WriteAt(5, 0, []byte(" world")) // never synced
	_ = b.Close()

	data, _ := s.LogicalBlob("p", []byte("log"))
	fmt.Printf("durable: %q\n", data)

	// A snapshot is what survives a crash; Restore brings it back.
	r := memory.Restore(s.Snapshot())
	b, size, _ := r.Open("p", []byte("log"))
	fmt.Println("size after restore:", size)
	_ = b.Close()
	// Output:
	// durable: "hello"
	// size after restore: 5
}
