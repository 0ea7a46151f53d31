package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBatchWriter: lines from many goroutines all arrive, whole and each once, and
// Close writes what is pending; writes after Close still arrive.
func TestBatchWriter(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	w := newBatchWriter(&out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				fmt.Fprintf(w, "g%d line %d %s\n", g, i, strings.Repeat("x", i%300))
			}
		}()
	}
	// A burst over maxPending makes Write flush itself.
	big := bytes.Repeat([]byte("y"), maxPending)
	_, _ = w.Write(append(big, '\n'))
	wg.Wait()
	w.Close()
	fmt.Fprintln(w, "after close")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] && !strings.HasPrefix(l, "y") {
			t.Fatalf("line twice: %.40q", l)
		}
		seen[l] = true
	}
	if len(lines) != 8*500+2 || !seen["after close"] {
		t.Fatalf("%d lines, want %d", len(lines), 8*500+2)
	}
	for g := range 8 {
		for i := range 500 {
			if !seen[fmt.Sprintf("g%d line %d %s", g, i, strings.Repeat("x", i%300))] {
				t.Fatalf("lost g%d line %d", g, i)
			}
		}
	}
}

// TestBatchWriterWritesALoneLine: a line is written by the writer goroutine on its own,
// without more lines or Close to push it out (it waits for flushDelay at most; the
// test polls instead of timing that).
func TestBatchWriterWritesALoneLine(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	w := newBatchWriter(&out)
	defer w.Close()
	fmt.Fprintln(w, "alone")
	for deadline := time.Now().Add(10 * time.Second); out.String() != "alone\n"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s the output is %q", out.String())
		}
	}
}
