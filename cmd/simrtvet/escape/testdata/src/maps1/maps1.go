package maps1

import (
	"fmt"
	"io"
	"sort"

	"github.com/simrt/simrt"
)

var _ simrt.Context

func keys(m map[string]int) []string {
	var out []string
	for k, v := range m { // want `range over a map whose body appends`
		if v > 0 {
			out = append(out, k)
		}
	}
	return out
}

func first(m map[int]string) string {
	for k := range m { // want `range over a map whose body returns`
		return m[k]
	}
	return ""
}

func dump(w io.Writer, byName map[string]bool) {
	for name, on := range byName { // want `range over a map whose body writes \(Fprintf\)`
		fmt.Fprintf(w, "%s=%v\n", name, on)
	}
}

func send(c chan int, m map[int]bool) {
	for k := range m { // want `range over a map whose body sends`
		c <- k // want `native channel send`
	}
}

type key struct{ a, b int }

// A key that is not ordered: reported, but no fix.
func structKeys(m map[key]int) []int {
	var out []int
	for _, v := range m { // want `range over a map whose body appends`
		out = append(out, v)
	}
	return out
}

// Summing does not depend on the order: not reported.
func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Collecting keys to sort them is the cure: not reported.
func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// A closure in the body runs later, if ever: not reported.
func closures(m map[string]int) []func() int {
	fs := make([]func() int, 0, len(m))
	for range m {
		_ = func() int { return 1 }
	}
	return fs
}

// err.Error() reads; it does not write: not reported.
func messages(m map[string]error) int {
	n := 0
	for _, err := range m {
		n += len(err.Error())
	}
	return n
}
