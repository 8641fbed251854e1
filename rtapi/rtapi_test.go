package rtapi_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/rtapi"
)

func TestTaskFuncsNilIsHarmless(t *testing.T) {
	var tf rtapi.TaskFuncs
	tf.Run(nil)
	tf.Done(nil)
	ran, done := false, error(nil)
	tf = rtapi.TaskFuncs{RunFunc: func(rtapi.Plumbing) { ran = true }, DoneFunc: func(err error) { done = err }}
	tf.Run(nil)
	tf.Done(simrt.ErrClosed)
	if !ran || done != simrt.ErrClosed {
		t.Fatalf("TaskFuncs: ran %v, done %v", ran, done)
	}
	rtapi.NoAbort{}.Abort()
}
