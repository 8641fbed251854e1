package allow

import (
	"time"

	"github.com/simrt/simrt"
)

var _ simrt.Context

func allowed(c chan int) time.Time {
	go func() {}() //simrt:allow the progress reporter runs outside the simulation
	//simrt:allow reads the wall clock for the summary's real time
	start := time.Now()
	c <- 1         /* want "simrt:allow needs a reason" "native channel send" */ //simrt:allow
	_ = time.Now() // want `time.Now reads the wall clock`
	return start
}
