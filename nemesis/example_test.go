package nemesis_test

import (
	"fmt"
	"time"

	"github.com/simrt/simrt/nemesis"
)

// A schedule is drawn from the seed: with swarm testing (the default) each
// seed enables its own subset of the fault kinds.
func ExampleDraw() {
	s, err := nemesis.Draw(nemesis.SeedRand(1), []string{"n1", "n2", "n3"}, nemesis.Config{Heal: 4 * time.Second})
	if err != nil {
		panic(err)
	}
	fmt.Print(s)
	fmt.Println("kinds:", s.Kinds())
	// Output:
	// 624ms cut {n3} -> {n1} for 1.512s
	// 1.366s loss {n2} 0.18 for 1.505s
	// 2.211s clock-drift {n2} -0.000927 for 1.264s
	// 3.068s partition {n3} | {n1,n2} for 260ms
	// 3.662s clock-drift {n3} -0.000234 for 338ms
	// 4s heal
	// kinds: [partition cut loss clock-drift]
}

// A schedule file is the same lines; it can be written by hand.
func ExampleParseSchedule() {
	s, err := nemesis.ParseSchedule([]byte(`# n2 loses power while cut off from the others
1.5s partition {n2} | {n1,n3} for 2s
2s poweroff {n2} for 500ms
5s heal
`))
	if err != nil {
		panic(err)
	}
	for _, e := range s.Events {
		fmt.Printf("%v: %v on %v for %v\n", e.At, e.Kind, e.Nodes, e.For)
	}
	_, err = nemesis.ParseSchedule([]byte("1s kill {n2} for soon\n5s heal\n"))
	fmt.Println(err)
	// Output:
	// 1.5s: partition on [n2] for 2s
	// 2s: poweroff on [n2] for 500ms
	// line 1: bad duration "soon"
}
