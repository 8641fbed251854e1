package deterministic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/storage/faulty"
)

// goldenMoved is the message of every golden mismatch.
const goldenMoved = "audit state moved: if this change is deliberate, update the golden value in the same commit and say why in the commit message"

// TestGoldenAuditStates pins the audit state and the number of audited
// events of a fixed workload that uses the simulated storage and network
// with faults, across crashes. A change to the executor, the generator, the
// network or storage model, or to what is audited moves these values: that
// must be deliberate, in the same commit as the new values, with the
// reason in the commit message. The demo (cmd/simrt) and raftkv
// (examples/raftkv) have their own golden tests in their modules.
//
// Each seed runs twice: once counting events (Config.Hooks.EventLog, which sends
// the auditor's fast paths through the generic path) and once without, so
// the test also shows that the same seed gives the same run and that
// counting does not change the hash.
func TestGoldenAuditStates(t *testing.T) {
	for _, tc := range []struct {
		name       string
		seed       uint64
		wantState  string
		wantEvents uint64
	}{
		{"storage+network+crashes", 1, "6cc0a3f5", 3325},
		{"storage+network+crashes", 42, "663cf02a", 3633},
	} {
		t.Run(fmt.Sprintf("%s/seed=%d", tc.name, tc.seed), func(t *testing.T) {
			counted := runGoldenWorkload(t, tc.seed, 1)
			plain := runGoldenWorkload(t, tc.seed, 0)
			if counted.state != plain.state || counted.records != plain.records || counted.resets != plain.resets {
				t.Fatalf("seed %d: two runs differ (counting events: %+v; not counting: %+v): the same seed must give the same run, and counting events must not change the hash",
					tc.seed, counted, plain)
			}
			if counted.state != tc.wantState || counted.events != tc.wantEvents {
				t.Fatalf("seed %d: state %s after %d events, golden %s after %d events (%d durable records, %d broken connections)\n%s",
					tc.seed, counted.state, counted.events, tc.wantState, tc.wantEvents, counted.records, counted.resets, goldenMoved)
			}
			if counted.records == 0 || counted.resets == 0 || counted.torn == 0 {
				t.Fatalf("seed %d: %+v: the workload no longer exercises storage, crashes and network faults", tc.seed, counted)
			}
		})
	}
}

// goldenEpochs is how many runs of the workload end in a crash before the
// final run checks what survived.
const goldenEpochs = 3

// goldenResult is what one run of the golden workload observed.
type goldenResult struct {
	state   string // final audit state
	events  uint64 // audited events (0 when not counted)
	records int    // records found intact by the final check
	torn    int    // recoveries that dropped a torn tail
	resets  int    // client connections that broke, over all epochs
}

var (
	goldenServer  = netip.MustParseAddr("10.0.0.1")
	goldenClients = []netip.Addr{netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")}
	goldenListen  = netip.AddrPortFrom(goldenServer, 7000)
)

// goldenRecord is the size of one log record: client (1 byte), sequence
// (4), payload (7), CRC-32C of the first 12 bytes (4).
const goldenRecord = 16

// runGoldenWorkload runs a small replicated log: two clients on their own
// hosts send records over lossy, jittery links that sometimes reset and
// are sometimes partitioned; the server appends each record to a blob,
// syncs every few records and acknowledges. Each of goldenEpochs runs ends
// in a crash that keeps a random part of the unsynced bytes; the next run
// recovers the log (dropping a torn tail) and carries on. A final run
// checks every durable record.
func runGoldenWorkload(t *testing.T, seed uint64, eventLog int) goldenResult {
	t.Helper()
	var res goldenResult
	var auditor *Auditor
	r := New(Config{
		Seed:          seed,
		Timeout:       time.Minute,
		Network:       simnet.Config{HoldTimeout: 100 * time.Millisecond},
		StorageFaults: faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5}},
		Hooks:         Hooks{EventLog: eventLog},
	})
	for epoch := range goldenEpochs {
		cp := r.StartAndRecover(func(ctx *Context) {
			auditor = ctx.Auditor()
			res.resets += goldenEpoch(t, ctx, epoch, &res.torn)
		})
		r = FromCheckpoint(cp)
	}
	r.Start(func(ctx *Context) {
		auditor = ctx.Auditor()
		b, _, n := recoverLog(t, ctx, &res.torn)
		if b != nil {
			res.records = n
			if err := b.Close(); err != nil {
				t.Errorf("close log: %v", err)
			}
		}
	})
	res.state = auditor.State()
	res.events = auditor.Log().Total()
	return res
}

// recoverLog opens the log, keeps its intact prefix (a crash may leave a
// torn record at the end) and returns the blob, the end of that prefix and
// the number of records in it. It counts a dropped tail in torn.
func recoverLog(t *testing.T, ctx *Context, torn *int) (simrt.Blob, uint64, int) {
	b, size, err := ctx.Open("golden", []byte("log"))
	if err != nil {
		t.Errorf("open log: %v", err)
		return nil, 0, 0
	}
	data := make([]byte, size)
	if err := b.ReadAt(data, 0); err != nil {
		t.Errorf("read log: %v", err)
		b.Close()
		return nil, 0, 0
	}
	good := 0
	for ; (good+1)*goldenRecord <= len(data); good++ {
		rec := data[good*goldenRecord : (good+1)*goldenRecord]
		if crc32.Checksum(rec[:12], castagnoli) != binary.BigEndian.Uint32(rec[12:]) {
			break
		}
	}
	end := uint64(good * goldenRecord)
	if end != size {
		*torn++
		if err := b.Resize(end); err != nil {
			t.Errorf("trim log: %v", err)
		}
		if err := b.Sync(); err != nil {
			t.Errorf("sync trimmed log: %v", err)
		}
	}
	return b, end, good
}

// goldenEpoch is one run until its crash: it recovers the log, serves the
// clients, runs a nemesis that partitions a client from the server now and
// then, and returns after a random while, which crashes every task and the
// storage. It returns how many client connections broke.
func goldenEpoch(t *testing.T, ctx *Context, epoch int, torn *int) (resets int) {
	link := simnet.Link{Latency: 2 * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.05, Retransmit: 10 * time.Millisecond, Reset: 0.02}
	ctx.Network().SetDefaultLink(link)
	blob, end, _ := recoverLog(t, ctx, torn)
	if blob == nil {
		return 0
	}
	srv := ctx.WithHost(goldenServer)
	l, err := srv.Bind(goldenListen)
	if err != nil {
		t.Errorf("bind: %v", err)
		return 0
	}
	simrt.Spawn(srv.Child("server"), func(ctx simrt.Context) struct{} {
		for {
			_, sink, stream, err := l.Accept()
			if err != nil {
				return struct{}{}
			}
			simrt.Spawn(ctx.Child("handler"), func(ctx simrt.Context) struct{} {
				defer sink.Close()
				defer stream.Close()
				for {
					rec, err := stream.Recv(goldenRecord)
					if err != nil {
						return struct{}{}
					}
					at := end
					end += goldenRecord
					if err := blob.WriteAt(at, 0, rec); err != nil {
						t.Errorf("write record: %v", err)
						return struct{}{}
					}
					if binary.BigEndian.Uint32(rec[1:])%4 == 3 {
						if err := blob.Sync(); err != nil {
							t.Errorf("sync log: %v", err)
							return struct{}{}
						}
					}
					if err := sink.Send(rec[1:5]); err != nil {
						return struct{}{}
					}
				}
			})
		}
	})
	for i, host := range goldenClients {
		simrt.Spawn(ctx.WithHost(host).Child("client"), func(ctx simrt.Context) struct{} {
			seq := uint32(epoch * 1000)
			for {
				sink, stream, err := ctx.Dial(goldenListen)
				if err != nil {
					ctx.Sleep(20 * time.Millisecond)
					continue
				}
				for {
					rec := make([]byte, goldenRecord)
					rec[0] = byte(i)
					binary.BigEndian.PutUint32(rec[1:], seq)
					ctx.Read(rec[5:12])
					binary.BigEndian.PutUint32(rec[12:], crc32.Checksum(rec[:12], castagnoli))
					err := sink.Send(rec)
					if err == nil {
						err = simrt.Timeout(ctx, 150*time.Millisecond, func() error {
							_, err := stream.Recv(4)
							return err
						})
					}
					if err != nil {
						if !errors.Is(err, simrt.ErrSendFailed) && !errors.Is(err, simrt.ErrRecvFailed) && !errors.Is(err, simrt.ErrTimeout) {
							t.Errorf("client %d: unexpected error %v", i, err)
						}
						resets++
						break
					}
					seq++
					ctx.Sleep(time.Duration(1+ctx.Rand().IntN(5)) * time.Millisecond)
				}
				sink.Close()
				stream.Close()
				ctx.Sleep(10 * time.Millisecond)
			}
		})
	}
	simrt.Spawn(ctx.Child("nemesis"), func(ctx simrt.Context) struct{} {
		for {
			ctx.Sleep(time.Duration(20+ctx.Rand().IntN(80)) * time.Millisecond)
			victim := goldenClients[ctx.Rand().IntN(len(goldenClients))]
			srv.Network().Partition(goldenServer, victim)
			ctx.Sleep(time.Duration(10+ctx.Rand().IntN(150)) * time.Millisecond)
			srv.Network().Join(goldenServer, victim)
		}
	})
	ctx.Sleep(time.Duration(300+ctx.Rand().IntN(300)) * time.Millisecond)
	return resets
}
