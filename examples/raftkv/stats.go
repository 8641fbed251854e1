package main

// raftStats counts what the nodes of a run ask of etcd raft, so that a
// driver of raft alone (BenchmarkRaftAlone) can be given the same work: the
// seed's share that is raft's own, measured without the simulator. A nil
// *raftStats counts nothing.
type raftStats struct {
	Nodes     int // RawNodes made (one per node incarnation)
	Steps     int // Step calls
	Readies   int // Ready calls
	Messages  int // messages those Readies carried
	Entries   int // entries they appended
	Committed int // committed entries they carried
	Ticks     int // Tick calls (a leader's: followers keep their own timer)
	Campaigns int // Campaign calls
	Proposals int // Propose calls
	ReadIndex int // ReadIndex calls (client reads and lease renewals)
}

func (s *raftStats) add(o raftStats) {
	if s == nil {
		return
	}
	s.Nodes += o.Nodes
	s.Steps += o.Steps
	s.Readies += o.Readies
	s.Messages += o.Messages
	s.Entries += o.Entries
	s.Committed += o.Committed
	s.Ticks += o.Ticks
	s.Campaigns += o.Campaigns
	s.Proposals += o.Proposals
	s.ReadIndex += o.ReadIndex
}
