package simrt

// SetBeforeRecheck makes parkPlain call f when a woken plain Send or Recv
// finds its waiter not Done, before it looks again under the channel's
// lock (see beforeRecheck). Call it before the runtime starts and call the
// returned function once it has stopped.
func SetBeforeRecheck(f func()) (restore func()) {
	beforeRecheck = f
	return func() { beforeRecheck = nil }
}

// SetBeforePark makes parkPlain call f when a plain Send or Recv has
// queued its waiter and released the channel's lock, and Select when it
// has opened its selection, just before the task parks (see beforePark). Call it before the runtime starts and call the
// returned function once it has stopped.
func SetBeforePark(f func()) (restore func()) {
	beforePark = f
	return func() { beforePark = nil }
}
