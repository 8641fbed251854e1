package simrthook

import (
	"runtime"
	"unsafe"
)

// Chans is the goroutine and channel half of a simulation's hooks,
// implemented by simrt's plain runtime (package plaingo). Channels are
// Go's own: ch is a channel's runtime pointer (the word of a chan value),
// never nil (the generic operations handle nil channels as Go does, by
// blocking through Block). Pointers to values are valid only during the
// call: an implementation copies a value into memory of its own before it
// parks, never keeps a pointer into the caller's stack, and writes a
// received value through the pointer only once it runs again.
type Chans interface {
	// Send sends *v on ch, parking the task while it cannot.
	Send(ch, v unsafe.Pointer, t *Type)
	// Recv receives from ch into *v, parking while it cannot; ok is false
	// when ch is closed and drained (then *v is left as it was, zero).
	Recv(ch, v unsafe.Pointer, t *Type) (ok bool)
	// Close closes ch and wakes every task parked on it.
	Close(ch unsafe.Pointer, t *Type)
	// Select runs a select statement: the index of the case that
	// proceeded, -1 for default (only when !block), and for a receive
	// case whether a value was received (false: closed). Cases with a
	// nil Ch are never ready; with none ready and block it parks.
	Select(cases []Case, block bool) (chosen int, recvOK bool)
	// Go starts f as a goroutine of the simulation.
	Go(f func())
	// Yield is runtime.Gosched.
	Yield()
	// Block parks the task for good (an operation on a nil channel, an
	// empty select): only the end of the run unwinds it.
	Block(what string)
}

// Type carries what the plain runtime needs to handle one channel element
// type without knowing it: native non-blocking operations on a channel
// given as its pointer, and typed copies between values.
type Type struct {
	// Key identifies the element type.
	Key unsafe.Pointer
	Ops
}

// Ops are the typed operations of one element type.
type Ops interface {
	// TrySend sends *v on ch if it can without blocking (room in the
	// buffer); it panics as Go does on a closed channel.
	TrySend(ch, v unsafe.Pointer) bool
	// TryRecv receives from ch into *v if it can without blocking (a
	// buffered value, or ch closed: ok false).
	TryRecv(ch, v unsafe.Pointer) (done, ok bool)
	// Close closes ch natively, panicking as Go does.
	Close(ch unsafe.Pointer)
	// New returns a new zero value.
	New() unsafe.Pointer
	// Move copies *src to *dst and zeroes *src.
	Move(dst, src unsafe.Pointer)
}

// ops implements Ops for T. It has no size, so making an Ops of it
// allocates nothing (generic function values would: each carries its
// dictionary in a closure).
type ops[T any] struct{}

// typeOf returns the Type of T.
func typeOf[T any]() Type {
	var o Ops = ops[T]{}
	return Type{Key: (*[2]unsafe.Pointer)(unsafe.Pointer(&o))[0], Ops: o}
}

func asChan[T any](ch unsafe.Pointer) chan T { return *(*chan T)(unsafe.Pointer(&ch)) }

func chanPtr[C any](ch C) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&ch)) }

func (ops[T]) TrySend(ch, v unsafe.Pointer) bool {
	select {
	case asChan[T](ch) <- *(*T)(v):
		return true
	default:
		return false
	}
}

func (ops[T]) TryRecv(ch, v unsafe.Pointer) (done, ok bool) {
	select {
	case x, ok := <-asChan[T](ch):
		*(*T)(v) = x
		return true, ok
	default:
		return false, false
	}
}

func (ops[T]) Close(ch unsafe.Pointer) { close(asChan[T](ch)) }

func (ops[T]) New() unsafe.Pointer { return unsafe.Pointer(new(T)) }

func (ops[T]) Move(dst, src unsafe.Pointer) {
	var zero T
	*(*T)(dst) = *(*T)(src)
	*(*T)(src) = zero
}

// Send is the statement ch <- v.
func Send[T any](ch chan<- T, v T) {
	if h := chans(); h != nil {
		if ch == nil {
			h.Block("send on nil chan")
		}
		t := typeOf[T]()
		h.Send(chanPtr(ch), noescape(unsafe.Pointer(&v)), (*Type)(noescape(unsafe.Pointer(&t))))
		return
	}
	ch <- v
}

// Recv is the expression <-ch.
func Recv[T any](ch <-chan T) T {
	v, _ := Recv2(ch)
	return v
}

// Recv2 is the expression <-ch in v, ok := <-ch.
func Recv2[T any](ch <-chan T) (v T, ok bool) {
	if h := chans(); h != nil {
		if ch == nil {
			h.Block("receive from nil chan")
		}
		t := typeOf[T]()
		ok = h.Recv(chanPtr(ch), noescape(unsafe.Pointer(&v)), (*Type)(noescape(unsafe.Pointer(&t))))
		return v, ok
	}
	v, ok = <-ch
	return v, ok
}

// Close is close(ch).
func Close[T any](ch chan<- T) {
	if h := chans(); h != nil && ch != nil {
		t := typeOf[T]()
		h.Close(chanPtr(ch), (*Type)(noescape(unsafe.Pointer(&t))))
		return
	}
	close(ch)
}

// Go is the statement go f(), its function and arguments already
// evaluated (the rewrite captures them).
func Go(f func()) {
	if h := chans(); h != nil {
		h.Go(f)
		return
	}
	go f()
}

// Yield is runtime.Gosched.
func Yield() {
	if h := chans(); h != nil {
		h.Yield()
		return
	}
	runtime.Gosched()
}

// Block is select {}: it never returns.
func Block() {
	if h := chans(); h != nil {
		h.Block("select with no cases")
	}
	select {}
}

// Case is one case of a select statement, for Select.
type Case struct {
	Ch   unsafe.Pointer // nil: never ready
	V    unsafe.Pointer // send: the value; receive: where the value goes
	Send bool
	T    Type
}

// RecvCase is the case <-ch of a select, receiving into *v.
func RecvCase[T any](ch <-chan T, v *T) Case {
	return Case{Ch: chanPtr(ch), V: unsafe.Pointer(v), T: typeOf[T]()}
}

// SendCase is the case ch <- *v of a select.
func SendCase[T any](ch chan<- T, v *T) Case {
	return Case{Ch: chanPtr(ch), V: unsafe.Pointer(v), Send: true, T: typeOf[T]()}
}

// Select runs a select statement in a simulation; the rewritten code calls
// it only when Active, and runs the native select statement otherwise.
func Select(block bool, cases ...Case) (chosen int, recvOK bool) {
	h := chans()
	if h == nil {
		panic("simrthook: Select called outside a simulation task")
	}
	if len(cases) == 0 {
		if block {
			h.Block("select with no cases")
		}
		return -1, false
	}
	p := (*Case)(noescape(unsafe.Pointer(unsafe.SliceData(cases))))
	return h.Select(unsafe.Slice(p, len(cases)), block)
}

// Zero returns the zero value of ch's element type (a select's receive
// slot).
func Zero[T any](ch <-chan T) (v T) { return v }

// SendOp is a send on a channel whose element type is fixed by the
// channel alone: the rewrite of ch <- v is On(ch).Send(v), so that v
// converts to the element type as in the statement (a *MyError sent on a
// chan error), which inferring the type from both arguments would refuse.
type SendOp[T any] struct{ ch chan<- T }

// On returns the sends on ch.
func On[T any](ch chan<- T) SendOp[T] { return SendOp[T]{ch} }

// Send is the statement ch <- v.
func (s SendOp[T]) Send(v T) { Send(s.ch, v) }

// Val returns v as the channel's element type (a select's send value,
// evaluated once, in source order).
func (s SendOp[T]) Val(v T) T { return v }

// Gosched is runtime.Gosched, given as native so that the rewritten file
// still uses its import of runtime.
func Gosched(native func()) {
	if h := chans(); h != nil {
		h.Yield()
		return
	}
	native()
}
