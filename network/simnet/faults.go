package simnet

import (
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/telemetry/audit"
)

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
//   - fault.Partition ("partition"): calls of Partition;
//   - fault.Cut ("cut"): one-way cuts, each call of Cut (a Partition is two);
//   - fault.Isolate ("isolate"): calls of Isolate;
//   - fault.Clog ("clog"): calls of Clog;
//   - fault.LinkReset ("link_reset"): connections reset by a link's Reset draw;
//   - fault.HoldReset ("hold_reset"): connections reset by Config.HoldTimeout;
//   - fault.HostReset ("host_reset"): calls of ResetHost (a node's process died);
//   - fault.LinkLoss ("link_loss"): losses drawn by Link.Loss, each
//     delaying a Send by one retransmission.
//
// Counting costs nothing when no fault is configured. The counts are not
// audited.
func (n *Network) Faults() fault.Counts {
	n.mu.Lock()
	defer n.mu.Unlock()
	f := &n.faults
	out := fault.Counts{}
	for _, c := range []fault.Count{
		{Name: fault.Partition, N: f.partition}, {Name: fault.Cut, N: f.cut},
		{Name: fault.Isolate, N: f.isolate}, {Name: fault.Clog, N: f.clog},
		{Name: fault.LinkReset, N: f.randomReset}, {Name: fault.HoldReset, N: f.holdReset},
		{Name: fault.HostReset, N: f.hostReset}, {Name: fault.LinkLoss, N: f.loss},
	} {
		out.Add(c.Name, c.N)
	}
	return out
}
