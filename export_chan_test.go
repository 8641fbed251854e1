package simrt

// SetBeforeRecheck makes parkPlain call f when a woken plain Send or Recv
// finds its waiter not Done, before it looks again under the channel's
// lock (see beforeRecheck). Call it before the runtime starts and call the
// returned function once it has stopped.
func SetBeforeRecheck(f func()) (restore func()) {
	beforeRecheck = f
	return func() { beforeRecheck = nil }
}
