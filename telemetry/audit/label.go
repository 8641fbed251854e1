package audit

// Label names the kind of an audited event. Its value is what the auditor
// hashes, so it is stable: renaming a Label changes every audit state.
type Label string

// Events of the simulator's executor and of the context's own services.
const (
	// ProcessTask is a task resume: id (8 bytes), task name.
	ProcessTask Label = "process_task"
	// Spawn is a new task: id (8 bytes), task name.
	Spawn Label = "spawn"
	// Rand is a draw from the runtime's randomness: "next_u64" for one
	// 64-bit draw, "fill_bytes" for a byte fill.
	Rand Label = "rand"
	// Timer is a timer set or a sleep begun: its deadline (8 bytes,
	// nanoseconds of simulated time since the Unix epoch).
	Timer Label = "timer"
	// Stop is a call of Stop: the exit value (4 bytes).
	Stop Label = "stop"
	// Stopped is a call of Stopped. It has no fields.
	Stopped Label = "stopped"
	// Register is a metric registration: name, help, then each attribute's
	// key and value.
	Register Label = "register"
	// Encode is an encoding of the metrics. It has no fields.
	Encode Label = "encode"
	// ResolverRegister sets a host's addresses: host, addresses (0 when
	// removed; else 1, then each address as a length byte and its
	// netip.Addr binary form).
	ResolverRegister Label = "resolver_register"
	// Resolve is a DNS lookup: host, addresses as for ResolverRegister
	// (0 when the host is unknown).
	Resolve Label = "resolve"
	// Buggify is a draw of a fault-injection site: site, outcome ("enabled"
	// or "disabled" on its first call, then "fired" or "held").
	Buggify Label = "buggify"
	// Node is a lifecycle or clock operation on a simulated node: node
	// name, operation ("add", "exit", "kill", "power_off", "restart",
	// "resume"; "pause" with its duration, "jump_clock" with its step, both
	// 8 bytes; "set_clock" with offset (8 bytes) and drift (8 bytes, the
	// float64's bits)).
	Node Label = "node"
)

// Events of network/audited: an attempt is recorded before the operation,
// then its outcome. Addresses are netip.AddrPort in text form; an error is
// its message.
const (
	// BindAttempt: local address.
	BindAttempt Label = "bind_attempt"
	// BindFailure: local address, error.
	BindFailure Label = "bind_failure"
	// BindSuccess: local address.
	BindSuccess Label = "bind_success"
	// DialAttempt: remote address.
	DialAttempt Label = "dial_attempt"
	// DialFailure: remote address, error.
	DialFailure Label = "dial_failure"
	// DialSuccess: remote address.
	DialSuccess Label = "dial_success"
	// AcceptAttempt: local address.
	AcceptAttempt Label = "accept_attempt"
	// AcceptFailure: local address, error.
	AcceptFailure Label = "accept_failure"
	// AcceptSuccess: local address, peer address.
	AcceptSuccess Label = "accept_success"
	// SendAttempt: remote address, the payload (all buffers as one field).
	SendAttempt Label = "send_attempt"
	// SendFailure: remote address, error.
	SendFailure Label = "send_failure"
	// SendSuccess: remote address.
	SendSuccess Label = "send_success"
	// RecvAttempt: remote address, bytes asked for (8 bytes).
	RecvAttempt Label = "recv_attempt"
	// RecvFailure: remote address, error.
	RecvFailure Label = "recv_failure"
	// RecvSuccess: remote address, the bytes received.
	RecvSuccess Label = "recv_success"
)

// Events of storage/audited, recorded before the operation. Integers are
// 8 bytes, versions 2.
const (
	// Open: partition, name, min version, max version.
	Open Label = "open"
	// Remove: partition, then 1 and the name for one blob, or 0 for the
	// whole partition.
	Remove Label = "remove"
	// Scan: partition.
	Scan Label = "scan"
	// ReadAt: partition, name, offset, length, 0.
	ReadAt Label = "read_at"
	// WriteAt: partition, name, offset, data (all buffers as one field),
	// write options (1 byte).
	WriteAt Label = "write_at"
	// Resize: partition, name, size.
	Resize Label = "resize"
	// Sync: partition, name.
	Sync Label = "sync"
	// StartSync: partition, name.
	StartSync Label = "start_sync"
	// Close: partition, name.
	Close Label = "close"
)

// Control events of the fault layers: storage/faulty and network/simnet.
// Every field is text.
const (
	// StorageDiskFault is a disk fault set: the fault's String ("healthy" heals).
	StorageDiskFault Label = "storage_disk_fault"
	// NetSetLink: from host, to host, the link.
	NetSetLink Label = "net_set_link"
	// NetSetDefaultLink: the link.
	NetSetDefaultLink Label = "net_set_default_link"
	// NetCut: from host, to host.
	NetCut Label = "net_cut"
	// NetHeal: from host, to host.
	NetHeal Label = "net_heal"
	// NetIsolate: host.
	NetIsolate Label = "net_isolate"
	// NetRejoin: host.
	NetRejoin Label = "net_rejoin"
	// NetHealAll has no fields.
	NetHealAll Label = "net_heal_all"
	// NetClog: from host, to host.
	NetClog Label = "net_clog"
	// NetRelease: from host, to host.
	NetRelease Label = "net_release"
	// NetReset is a connection reset: from address, to address, why.
	NetReset Label = "net_reset"
	// HostReset is a host's connections and listeners dropped: host,
	// connections reset, listeners closed (decimal).
	HostReset Label = "host_reset"
)

// All returns every label of this package, in the order they are declared
// above. The slice is the caller's.
func All() []Label {
	return []Label{
		ProcessTask, Spawn, Rand, Timer, Stop, Stopped, Register, Encode,
		ResolverRegister, Resolve, Buggify, Node,
		BindAttempt, BindFailure, BindSuccess, DialAttempt, DialFailure, DialSuccess,
		AcceptAttempt, AcceptFailure, AcceptSuccess, SendAttempt, SendFailure, SendSuccess,
		RecvAttempt, RecvFailure, RecvSuccess,
		Open, Remove, Scan, ReadAt, WriteAt, Resize, Sync, StartSync, Close,
		StorageDiskFault, NetSetLink, NetSetDefaultLink, NetCut, NetHeal, NetIsolate,
		NetRejoin, NetHealAll, NetClog, NetRelease, NetReset, HostReset,
	}
}
