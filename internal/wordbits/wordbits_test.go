package wordbits_test

import (
	"testing"

	"github.com/skygate/skygate/internal/wordbits"
)

// TestTests checks every test against its byte-at-a-time definition: every byte value at
// every position of a word, among neighbours that could borrow or carry into it.
func TestTests(t *testing.T) {
	t.Parallel()
	for _, fill := range []byte{'a', ' ', '~', '!', '#', 0x21, 0x7f, 0x80, 0xff, 0} {
		for pos := range 8 {
			for c := range 256 {
				w := []byte{fill, fill, fill, fill, fill, fill, fill, fill}
				w[pos] = byte(c)
				x := wordbits.Load64(string(w), 0)
				for _, n := range []byte{1, 0x20, 0x21, 0x80} {
					if got, want := wordbits.Below(x, n) != 0, anyByte(w, func(b byte) bool { return b < n }); got != want {
						t.Fatalf("Below(%q, %#x) = %v, want %v", w, n, got, want)
					}
				}
				for _, k := range []byte{'"', '\\', 0x7f, '<', 0} {
					if got, want := wordbits.Equal(x, k) != 0, anyByte(w, func(b byte) bool { return b == k }); got != want {
						t.Fatalf("Equal(%q, %#x) = %v, want %v", w, k, got, want)
					}
				}
				if got, want := wordbits.NonASCII(x) != 0, anyByte(w, func(b byte) bool { return b >= 0x80 }); got != want {
					t.Fatalf("NonASCII(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

func TestLoad64(t *testing.T) {
	t.Parallel()
	if got := wordbits.Load64("xx\x01\x02\x03\x04\x05\x06\x07\x08", 2); got != 0x0807060504030201 {
		t.Errorf("Load64 = %#x", got)
	}
}

func anyByte(w []byte, f func(byte) bool) bool {
	for _, b := range w {
		if f(b) {
			return true
		}
	}
	return false
}
