package electbench

import (
	"time"

	"github.com/simrt/simrt"
)

// The direct mode of the simrt driver (SimConfig.direct) is a diagnostic:
// the same tasks, inboxes, timers, auditor and metrics, but a message
// skips the network stack. The sender draws its delay from the runtime's
// generator and arms a timer that puts the message straight into the
// receiver's inbox, with the same model as the floor: in order per
// direction of a pair, and lost if the split stood at any moment of its
// flight. Comparing it with the full driver gives the share of a run that
// simnet, its audited and metered layers and the reader tasks cost.

// direct is the direct mode's network state.
type direct struct {
	cut  bool   // the split stands
	gen  uint64 // bumped by every split, so that a message in flight across it is lost
	last [Nodes][Nodes]time.Time
}

// sendDirect puts m on its way without the network stack (the loss draw
// has been made).
func (sn *simNode) sendDirect(ctx simrt.Context, m Message) {
	run := sn.run
	from, to := int(m.From), int(m.To)
	if run.dir.cut && crossesSplit(from, to) {
		return
	}
	now := ctx.Now()
	at := now.Add(MinDelay + time.Duration(ctx.Rand().Int64N(int64(MaxDelay-MinDelay)+1)))
	if last := run.dir.last[from][to]; last.After(at) {
		at = last
	}
	run.dir.last[from][to] = at
	gen, sent, dst := run.dir.gen, now.Sub(run.t0), run.sims[to]
	ctx.AfterFunc(at.Sub(now), func() {
		if crossesSplit(from, to) && (run.dir.cut || run.dir.gen != gen) {
			return
		}
		if leaked(from, to, sent, at.Sub(run.t0), run.split, run.heal) {
			run.res.Leaked++
		}
		dst.inbox.TrySend(simEvent{msg: m, sent: sent})
	})
}
