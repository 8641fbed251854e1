package deterministic

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
)

func TestSmoke(t *testing.T) {
	var got []int
	var state string
	Seeded(1).Start(func(ctx *Context) {
		ch := simrt.NewChan[int](1)
		h := simrt.Spawn(ctx.Child("producer"), func(ctx simrt.Context) int {
			for i := range 5 {
				ctx.Sleep(time.Millisecond)
				ch.Send(ctx, i)
			}
			ch.Close()
			return 42
		})
		for {
			v, ok := ch.Recv(ctx)
			if !ok {
				break
			}
			got = append(got, v)
		}
		v, err := h.Await(ctx)
		if v != 42 || err != nil {
			t.Errorf("await = %v, %v", v, err)
		}
		state = ctx.Auditor().State()
		t.Log(ctx.Now(), state)
		t.Log(ctx.Encode())
	})
	if len(got) != 5 {
		t.Fatalf("got %v", got)
	}
}
