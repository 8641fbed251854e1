// Package audit names the events the simulator's auditor fingerprints.
//
// Every operation a simulation performs that the outside could observe is
// recorded as one event: a Label and a list of byte fields. The auditor
// (deterministic.Auditor) takes a CRC-32C over them, so the labels and the
// layout of their fields are part of every golden audit state: a Label's
// value is its wire form and never changes.
//
// This package is the one list of those labels. The layers that record
// events (the simulator itself, network/audited, storage/audited,
// storage/faulty, network/simnet) and the tools that read an event log back
// (telemetry/trace, simtest) all use these constants, never bare strings.
// Each constant's comment says what its fields are. Integers are big-endian
// unless a comment says otherwise.
//
// Events recorded for a node's storage carry the node's name as an extra
// first field, before the fields listed here.
//
// The smallest use, matching the events of a run's log (with
// deterministic.Config.Hooks.EventLog set):
//
//	for _, e := range ctx.Auditor().Log().Events() {
//		if e.Label == audit.Spawn {
//			fmt.Printf("spawn of %s\n", e.Fields[1])
//		}
//	}
package audit
