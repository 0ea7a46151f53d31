package catalog

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fold returns the form of s that the name filter compares: NFC-normalized, lower-cased
// by Unicode simple case mapping, with the variants below made equal. Both the names and
// the filter value are folded, so matching is a plain substring test.
//
//   - İ (U+0130) and ı (U+0131) fold to i, and a combining dot above (U+0307) is dropped,
//     so Turkish "İstanbul" and "ISTANBUL" match "Istanbul";
//   - ё folds to е, as Russian readers treat them as one letter in search;
//   - ʻ ʼ ‘ ’ ` ´ fold to ', so Uzbek "oʻ" matches the common spelling "o'";
//   - en and em dashes fold to -, and a no-break space to a space;
//   - final sigma folds to σ.
func Fold(s string) string {
	return strings.Map(foldRune, norm.NFC.String(s))
}

// foldRune maps one rune; -1 drops it.
func foldRune(r rune) rune {
	switch r {
	case 'İ', 'ı':
		return 'i'
	case '\u0307':
		return -1
	case 'Ё', 'ё':
		return 'е'
	case 'ς':
		return 'σ'
	case 'ʻ', 'ʼ', '‘', '’', '`', '´':
		return '\''
	case '–', '—':
		return '-'
	case '\u00a0':
		return ' '
	}
	return unicode.ToLower(r)
}
