package main

import (
	"io"
	"sync"
	"time"
)

// batchWriter writes log lines to out from a goroutine of its own, the lines of up to
// flushDelay in one write(2). Under load the access log then costs a small fraction
// of a system call per request instead of one: writing as soon as the goroutine ran
// was one write per line, because the Go scheduler runs a goroutine woken by a
// request's handler right after that handler, before the next request's. A line
// reaches out at most flushDelay after it was written (at once when maxPending is
// queued, and on Close), so a crash loses at most the lines of the last flushDelay.
// Write never fails: out's errors are dropped, as a log line that cannot be written
// has nowhere to be reported.
type batchWriter struct {
	out io.Writer

	mu     sync.Mutex
	buf    []byte
	closed bool

	flushMu sync.Mutex // orders the writes to out
	spare   []byte
	wake    chan struct{}
	done    chan struct{}
}

// maxPending is how much may wait for the writer goroutine before Write writes
// itself, so a slow out slows the callers down rather than growing memory.
const maxPending = 1 << 20

// flushDelay is how long the writer goroutine collects lines before it writes them.
const flushDelay = time.Millisecond

func newBatchWriter(out io.Writer) *batchWriter {
	w := &batchWriter{out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.loop()
	return w
}

// Write queues a copy of p.
func (w *batchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	full := len(w.buf) >= maxPending
	if !full {
		// Under mu: Close closes wake only after it has set closed under mu.
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	w.mu.Unlock()
	if full {
		w.flush()
	}
	return len(p), nil
}

func (w *batchWriter) loop() {
	defer close(w.done)
	for range w.wake {
		time.Sleep(flushDelay)
		w.flush()
	}
}

// flush writes what is queued.
func (w *batchWriter) flush() {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	w.buf, w.spare = w.spare[:0], w.buf
	w.mu.Unlock()
	if len(w.spare) > 0 {
		_, _ = w.out.Write(w.spare)
	}
}

// Close writes what is queued and makes later writes go straight to out.
func (w *batchWriter) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.wake)
	<-w.done
	w.flush()
	return nil
}
