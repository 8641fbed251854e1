package simnet

import "github.com/simrt/simrt/telemetry/audit"

// faultCounts counts the faults a network injected: control calls that
// break links and the faults its links drew. The counts are not audited:
// they describe a run, they do not take part in its fingerprint. Guarded by
// Network.mu.
type faultCounts struct {
	partition, cut, isolate, clog uint64 // control calls
	randomReset, holdReset        uint64 // connections reset
	hostReset                     uint64 // calls of ResetHost
	loss                          uint64 // retransmissions drawn (Link.Loss)
}

// countControl counts a control event by its label. Called with mu held.
func (f *faultCounts) countControl(label audit.Label, fields []string) {
	switch label {
	case audit.NetCut:
		f.cut++
	case audit.NetIsolate:
		f.isolate++
	case audit.NetClog:
		f.clog++
	case audit.HostReset:
		f.hostReset++
	case audit.NetReset:
		if len(fields) == 3 && fields[2] == "hold_timeout" {
			f.holdReset++
		} else {
			f.randomReset++
		}
	}
}

// Faults returns how many faults the network has injected so far, by kind,
// leaving out kinds it has not injected:
//
//   - "partition": calls of Partition;
//   - "cut": one-way cuts, each call of Cut (a Partition is two);
//   - "isolate": calls of Isolate;
//   - "clog": calls of Clog;
//   - "link_reset": connections reset by a link's Reset draw;
//   - "hold_reset": connections reset by Config.HoldTimeout;
//   - "host_reset": calls of ResetHost (a node's process died);
//   - "link_loss": losses drawn by Link.Loss, each delaying a Send by one
//     retransmission.
//
// Counting costs nothing when no fault is configured. The counts are not
// audited.
func (n *Network) Faults() map[string]uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	f := &n.faults
	out := make(map[string]uint64)
	for _, c := range []struct {
		kind string
		n    uint64
	}{
		{"partition", f.partition}, {"cut", f.cut}, {"isolate", f.isolate}, {"clog", f.clog},
		{"link_reset", f.randomReset}, {"hold_reset", f.holdReset}, {"host_reset", f.hostReset}, {"link_loss", f.loss},
	} {
		if c.n > 0 {
			out[c.kind] = c.n
		}
	}
	return out
}
