package simnet

// byteQueue is a FIFO of bytes: written at the back, consumed at the front.
type byteQueue struct {
	b   []byte
	off int
}

func (q *byteQueue) len() int { return len(q.b) - q.off }

// bytes returns the queued bytes without consuming them.
func (q *byteQueue) bytes() []byte { return q.b[q.off:] }

func (q *byteQueue) write(p []byte) {
	if q.off > 0 && (q.off == len(q.b) || q.off >= cap(q.b)/2) {
		n := copy(q.b, q.b[q.off:])
		q.b, q.off = q.b[:n], 0
	}
	q.b = append(q.b, p...)
}

// consume drops the first n bytes.
func (q *byteQueue) consume(n int) {
	q.off += n
	if q.off == len(q.b) {
		q.b, q.off = q.b[:0], 0
	}
}

// moveTo moves up to n bytes from q to the back of dst.
func (q *byteQueue) moveTo(dst *byteQueue, n int) {
	if n <= 0 {
		return
	}
	if n >= q.len() && dst.len() == 0 {
		*q, *dst = byteQueue{b: dst.b[:0]}, *q // swap buffers, no copy
		return
	}
	n = min(n, q.len())
	dst.write(q.b[q.off : q.off+n])
	q.consume(n)
}

// dropBack drops the last n bytes.
func (q *byteQueue) dropBack(n int) {
	q.b = q.b[:len(q.b)-n]
	if q.off == len(q.b) {
		q.b, q.off = q.b[:0], 0
	}
}

// reset empties the queue and frees its memory.
func (q *byteQueue) reset() { *q = byteQueue{} }
