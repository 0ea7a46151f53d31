package jsonstring

import (
	"unicode/utf8"

	"github.com/skygate/skygate/internal/wordbits"
)

const hexDigits = "0123456789abcdef"

// plainASCII[c] (plainASCIIHTML[c] with HTML escaping) says whether the byte c is an
// ASCII character written as itself. Append's loop skips such bytes with one lookup
// each: most strings are nothing else.
var plainASCII, plainASCIIHTML = func() (plain, plainHTML [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		plainHTML[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return plain, plainHTML
}()

// Append appends s as a JSON string, byte for byte as encoding/json's Marshal writes
// it (with escapeHTML) or as an Encoder with SetEscapeHTML(false) does: quotes,
// backslashes and control characters escaped (\b \f \n \r \t by name, the rest as
// \u00XX), each byte of invalid UTF-8 replaced by U+FFFD (written as the character itself, as
// encoding/json has since Go 1.27), U+2028 and U+2029 escaped,
// and with escapeHTML also <, > and &. The result is valid JSON for any s.
func Append(b []byte, s string, escapeHTML bool) []byte {
	plain := &plainASCII
	if escapeHTML {
		plain = &plainASCIIHTML
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none of them needs more than copying.
		if escapeHTML {
			for i+8 <= len(s) && !specialHTML8(wordbits.Load64(s, i)) {
				i += 8
			}
		} else {
			for i+8 <= len(s) && !special8(wordbits.Load64(s, i)) {
				i += 8
			}
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, string(utf8.RuneError)...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// special8 reports whether any of the eight bytes in x is not plainASCII: below 0x20,
// '"', '\\' or not ASCII.
func special8(x uint64) bool {
	return wordbits.Below(x, 0x20)|wordbits.NonASCII(x)|wordbits.Equal(x, '"')|wordbits.Equal(x, '\\') != 0
}

// specialHTML8 is special8 for plainASCIIHTML: '<', '>' and '&' too.
func specialHTML8(x uint64) bool {
	return special8(x) || wordbits.Equal(x, '<')|wordbits.Equal(x, '>')|wordbits.Equal(x, '&') != 0
}
