package i18n

import (
	"strings"

	"github.com/skygate/skygate"
)

// Limits on what Negotiate reads of a header. Browsers send a few dozen bytes; anything
// far longer is a client bug or an attack and must not cost more than this.
const (
	MaxHeaderBytes = 1024
	MaxItems       = 32
)

// languages are indexed by the lang values below, in the order "*" tries them.
var languages = [...]string{skygate.LangEN, skygate.LangRU, skygate.LangUZ, skygate.LangKK}

const (
	langNone int8 = -1 // a valid range of an unsupported language
	langStar int8 = -2 // "*"
)

// item is one parsed element of the header; q is the weight in thousandths.
type item struct {
	lang int8
	q    int16
}

// Default is the language of a response when negotiation finds nothing acceptable.
const Default = skygate.LangEN

// Negotiate returns the response language for an Accept-Language header value: one of
// skygate.Languages, never anything else. The rules are in the package documentation.
func Negotiate(header string) string {
	if header == "" {
		return Default
	}
	for _, l := range languages {
		if header == l {
			return l // the commonest header: one supported language, nothing else
		}
	}
	if len(header) > MaxHeaderBytes {
		// Cut at the last comma inside the limit so that no item is read half.
		header = header[:MaxHeaderBytes]
		i := strings.LastIndexByte(header, ',')
		if i < 0 {
			return Default
		}
		header = header[:i]
	}

	var items [MaxItems]item
	n := 0
	var named uint8 // bit i: languages[i] is named by some item
	for rest := header; rest != "" && n < MaxItems; {
		var elem string
		elem, rest, _ = strings.Cut(rest, ",")
		elem = trimOWS(elem)
		if elem == "" {
			continue // RFC 9110 §5.6.1: empty list elements are ignored
		}
		it, ok := parseItem(elem)
		if !ok {
			continue
		}
		if it.lang >= 0 {
			named |= 1 << it.lang
		}
		items[n] = it
		n++
	}

	starLang := langNone
	for i := range languages {
		if named&(1<<i) == 0 {
			starLang = int8(i)
			break
		}
	}

	best, bestQ := langNone, int16(0)
	for _, it := range items[:n] {
		lang := it.lang
		if lang == langStar {
			lang = starLang
		}
		// Strictly greater keeps the first of equal weights; q=0 never wins.
		if lang >= 0 && it.q > bestQ {
			best, bestQ = lang, it.q
		}
	}
	if best < 0 {
		return Default
	}
	return languages[best]
}

// parseItem parses `language-range *( OWS ";" OWS parameter )`. Only the q parameter
// means something; other parameters are ignored, a malformed q rejects the item.
func parseItem(elem string) (item, bool) {
	tag, params, _ := strings.Cut(elem, ";")
	it := item{q: 1000}
	var ok bool
	if it.lang, ok = parseRange(trimOWS(tag)); !ok {
		return item{}, false
	}
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		p = trimOWS(p)
		if len(p) < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=' {
			continue
		}
		if it.q, ok = parseQ(p[2:]); !ok {
			return item{}, false
		}
	}
	return it, true
}

// parseRange validates an RFC 4647 basic language range (`1*8ALPHA *("-" 1*8alphanum)`
// or "*") and returns the supported language of its primary subtag, langNone, or
// langStar.
func parseRange(tag string) (int8, bool) {
	if tag == "*" {
		return langStar, true
	}
	primary := tag
	if i := strings.IndexByte(tag, '-'); i >= 0 {
		primary = tag[:i]
		for sub := tag[i+1:]; ; {
			var s string
			s, sub, _ = strings.Cut(sub, "-")
			if len(s) == 0 || len(s) > 8 || !isAlnum(s) {
				return 0, false
			}
			if sub == "" {
				break
			}
		}
	}
	if len(primary) == 0 || len(primary) > 8 || !isAlpha(primary) {
		return 0, false
	}
	return lookup(primary), true
}

// lookup maps a primary language subtag (any case) to a supported language.
func lookup(p string) int8 {
	switch len(p) {
	case 2:
		switch uint16(lower(p[0]))<<8 | uint16(lower(p[1])) {
		case 'e'<<8 | 'n':
			return 0
		case 'r'<<8 | 'u':
			return 1
		case 'u'<<8 | 'z':
			return 2
		case 'k'<<8 | 'k':
			return 3
		}
	case 3:
		var b [3]byte
		for i := range 3 {
			b[i] = lower(p[i])
		}
		switch string(b[:]) { // no allocation: the compiler compares in place
		case "eng":
			return 0
		case "rus":
			return 1
		case "uzb", "uzn":
			return 2
		case "kaz":
			return 3
		}
	}
	return langNone
}

// parseQ parses an RFC 9110 §12.4.2 qvalue: "0" ["." 0*3DIGIT] or "1" ["." 0*3"0"],
// returning thousandths.
func parseQ(s string) (int16, bool) {
	if s == "" || len(s) > 5 || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	q := int16(s[0]-'0') * 1000
	if len(s) == 1 {
		return q, true
	}
	if s[1] != '.' {
		return 0, false
	}
	scale := int16(100)
	for i := 2; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || (q == 1000 && c != '0') {
			return 0, false
		}
		q += int16(c-'0') * scale
		scale /= 10
	}
	return q, true
}

func trimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9') && !('a' <= c|0x20 && c|0x20 <= 'z') {
			return false
		}
	}
	return true
}
