//simrt:allow-file production main: it runs on the realtime runtime, never under the simulator

package main

import (
	"time"

	"github.com/simrt/simrt"
)

var _ simrt.Context

func main() {
	go func() {}()
	time.Sleep(time.Second)
}
