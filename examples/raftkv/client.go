package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/simrt/simrt"
)

// Client timing, in runtime time.
const (
	requestTimeout = 300 * time.Millisecond
	retryBackoff   = 20 * time.Millisecond
	maxThink       = 100 * time.Millisecond
)

// keys is the key space the clients share: small, so that operations
// conflict.
var keys = []string{"x", "y", "z"}

// op is one client operation as the checker sees it: invoked at call, and
// returned at ret with res (done false: it never returned).
type op struct {
	client    int
	cmd       Command
	call, ret time.Duration // since the start of the run
	res       Result
	done      bool
}

// client issues one operation at a time and retries it, with the same
// sequence number, until a node answers: on a timeout it tries another
// node, on a redirect it follows the hint. Its state outlives a
// whole-cluster crash (the client is not part of the cluster), so an
// operation interrupted by a crash is retried after it.
type client struct {
	id       int
	nodes    int
	seq      uint64
	cur      *op
	leader   uint64 // the node it believes leads, 0 if unknown
	seen     map[string]string
	finished bool
	conns    []*conn // by node id-1, for the current epoch only
	sim      *sim
}

func newClient(id, nodes int, s *sim) *client {
	return &client{id: id, nodes: nodes, seen: make(map[string]string), sim: s}
}

// run issues operations until stopAt, then finishes the one in progress.
func (c *client) run(ctx simrt.Context, stopAt time.Time) {
	c.conns = make([]*conn, c.nodes)
	defer func() {
		for i := range c.conns {
			c.drop(i)
		}
	}()
	for {
		if c.cur == nil {
			ctx.Sleep(time.Duration(ctx.Rand().Int64N(int64(maxThink))))
			if !ctx.Now().Before(stopAt) {
				return
			}
			c.cur = c.next(ctx)
		}
		if res, ok := c.attempt(ctx); ok {
			c.complete(ctx, res)
		}
	}
}

// next invokes a new random operation and records it in the history.
func (c *client) next(ctx simrt.Context) *op {
	rng := ctx.Rand()
	c.seq++
	cmd := Command{Client: uint32(c.id), Seq: c.seq, Key: keys[rng.IntN(len(keys))]}
	switch r := rng.IntN(10); {
	case r < 4:
		cmd.Kind = OpGet
	case r < 7:
		cmd.Kind = OpPut
		cmd.Value = value(c.id, c.seq)
	default:
		cmd.Kind = OpCAS
		cmd.Expect = c.seen[cmd.Key]
		cmd.Value = value(c.id, c.seq)
	}
	o := &op{client: c.id, cmd: cmd, call: c.sim.since(ctx)}
	c.sim.history = append(c.sim.history, o)
	if c.sim.log.enabled() {
		c.sim.log.printf(ctx, "c%d: invoke %v", c.id, cmd)
	}
	return o
}

// complete records the answer to the current operation.
func (c *client) complete(ctx simrt.Context, res Result) {
	o := c.cur
	o.ret, o.res, o.done = c.sim.since(ctx), res, true
	switch o.cmd.Kind {
	case OpGet:
		c.seen[o.cmd.Key] = res.Value
	case OpPut:
		c.seen[o.cmd.Key] = o.cmd.Value
	case OpCAS:
		if res.OK {
			c.seen[o.cmd.Key] = o.cmd.Value
		}
	}
	if c.sim.log.enabled() {
		c.sim.log.printf(ctx, "c%d: return %v -> %s", c.id, o.cmd, describeResult(o.cmd.Kind, res))
	}
	c.cur = nil
}

// target picks the node for the next attempt: reads go to any node, writes
// to the believed leader.
func (c *client) target(ctx simrt.Context) int {
	if c.cur.cmd.Kind != OpGet && c.leader != 0 {
		return int(c.leader - 1)
	}
	return ctx.Rand().IntN(c.nodes)
}

// attempt sends the current operation once and reports its result, or
// false if the client must try again.
func (c *client) attempt(ctx simrt.Context) (Result, bool) {
	t := c.target(ctx)
	var resp response
	err := simrt.Timeout(ctx, requestTimeout, func() error {
		cn, err := c.dial(ctx, t)
		if err != nil {
			return err
		}
		if err := sendFrame(cn.sink, appendCommand(newFrame(), c.cur.cmd)); err != nil {
			return err
		}
		f, err := readFrame(cn.stream)
		if err != nil {
			return err
		}
		resp, err = decodeResponse(f)
		return err
	})
	if err != nil {
		c.drop(t)
		if c.leader == uint64(t+1) {
			c.leader = 0
		}
		ctx.Sleep(retryBackoff)
		return Result{}, false
	}
	switch resp.status {
	case statusOK:
		return resp.result, true
	case statusRedirect:
		if resp.leader == 0 || resp.leader == c.leader {
			ctx.Sleep(retryBackoff)
		}
		c.leader = resp.leader
	default:
		ctx.Sleep(retryBackoff)
	}
	return Result{}, false
}

// dial returns the connection to node index t, dialing it if needed.
func (c *client) dial(ctx simrt.Context, t int) (*conn, error) {
	if cn := c.conns[t]; cn != nil {
		return cn, nil
	}
	sink, stream, err := ctx.Dial(nodeAddr(uint64(t + 1)))
	if err != nil {
		return nil, err
	}
	cn := &conn{sink: sink, stream: stream}
	c.conns[t] = cn
	if err := sink.Send([]byte{helloClient}); err != nil {
		return nil, err
	}
	return cn, nil
}

// drop closes the connection to node index t, if any.
func (c *client) drop(t int) {
	if cn := c.conns[t]; cn != nil {
		cn.close()
		c.conns[t] = nil
	}
}

// describeResult renders a result for logs and the visualisation.
func describeResult(k OpKind, r Result) string {
	switch k {
	case OpGet:
		return fmt.Sprintf("%q", r.Value)
	case OpCAS:
		if r.OK {
			return "swapped"
		}
		return "failed"
	}
	return "ok"
}

// value returns the unique value client id writes with sequence number seq.
func value(id int, seq uint64) string {
	return strconv.Itoa(id) + "." + strconv.FormatUint(seq, 10)
}
