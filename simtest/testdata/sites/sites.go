// Package sites is input for the source scanner's test: calls of the
// property functions and Buggify, some with constant messages.
package sites

import (
	"time"

	sim "github.com/simrt/simrt"
	"github.com/simrt/simrt/simtest/testdata/sites/inner"
)

const prefix = "ledger: "

const balanceMsg = prefix + "balance never negative"

// Transfer is never run: its sites are found only in the source.
func Transfer(ctx sim.Context, balance int, msg string) {
	sim.Always(ctx, balance >= 0, balanceMsg, "balance", balance)
	sim.Sometimes(ctx,
		balance == 0,
		"an account "+
			"emptied")
	sim.Reachable(ctx, "transfer ran")
	sim.Unreachable(ctx, msg) // not a constant: not found
	if sim.Buggify(ctx, "slow_transfer") {
		ctx.Sleep(time.Second)
	}
	sim.AlwaysOrUnreachable(ctx, true, ("parenthesised"))
	inner.Check(ctx)
}
