// Package wordbits tests eight bytes of a string at once, with the bit tricks of
// "Determine if a word has a byte less than n" (Bit Twiddling Hacks): the scans on hot
// paths (JSON strings, entity tags) skip a whole word when none of its bytes is one they
// look for. Each test is exact as a yes/no answer for the word: non-zero exactly when
// some byte matches, though the bits set do not say which byte.
package wordbits

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Load64 reads s[i:i+8] as a little-endian word (one load once compiled).
func Load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Below is non-zero when a byte of x is below n, for n ≤ 0x80; a byte from 0x80 never
// counts.
func Below(x uint64, n byte) uint64 { return (x - ones*uint64(n)) &^ x & highs }

// Equal is non-zero when a byte of x is c.
func Equal(x uint64, c byte) uint64 { return Below(x^(ones*uint64(c)), 1) }

// NonASCII is non-zero when a byte of x is 0x80 or above.
func NonASCII(x uint64) uint64 { return x & highs }
