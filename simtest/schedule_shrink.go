package simtest

import (
	"os"
	"strconv"
)

// flagShrinkSchedule is the old name of -simrt.shrink (loadSettings).
var flagShrinkSchedule = &setting{name: "shrinkschedule", isBool: true,
	usage: "the old name of -simrt.shrink, which shrinks the fault schedule and the decision stream"}

func init() {
	registerFlag(flagShrinkSchedule)
}

func shrinkScheduleOn() bool {
	v, ok := flagShrinkSchedule.value, flagShrinkSchedule.set
	if !ok {
		v, ok = os.LookupEnv(flagShrinkSchedule.env())
	}
	on, _ := strconv.ParseBool(v)
	return ok && on
}
