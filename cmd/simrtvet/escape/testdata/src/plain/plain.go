// Package plain does not import simrt: nothing is reported.
package plain

import (
	"sync"
	"time"
)

func plain(c chan int, m map[string]int) []string {
	go func() {}()
	c <- 1
	_ = time.Now()
	var mu sync.Mutex
	mu.Lock()
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
