package i18n

import (
	"cmp"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/skygate/skygate"
)

// Limits on what Negotiate reads of a header, so that an absurd header costs no more
// than a long ordinary one.
const (
	MaxHeaderBytes = 1024
	MaxItems       = 32
)

// Default is the language of a response when negotiation finds nothing acceptable.
const Default = skygate.LangEN

// primaryLanguages maps the primary subtags of the supported languages, two-letter and
// three-letter, in lower case, to the language.
var primaryLanguages = map[string]string{
	"en": skygate.LangEN, "eng": skygate.LangEN,
	"ru": skygate.LangRU, "rus": skygate.LangRU,
	"uz": skygate.LangUZ, "uzb": skygate.LangUZ, "uzn": skygate.LangUZ,
	"kk": skygate.LangKK, "kaz": skygate.LangKK,
}

// preference is one acceptable item of the header: lang is a supported language, ""
// for an unsupported one, or "*".
type preference struct {
	lang   string
	weight float64
}

// Negotiate returns the response language for an Accept-Language header value: one of
// skygate.Languages, never anything else. The rules are in the package documentation.
func Negotiate(header string) string {
	if len(header) > MaxHeaderBytes {
		// Cut at the last comma inside the limit so that no item is read half.
		header = header[:MaxHeaderBytes]
		i := strings.LastIndexByte(header, ',')
		if i < 0 {
			return Default
		}
		header = header[:i]
	}

	prefs := make([]preference, 0, MaxItems)
	for rest := header; rest != "" && len(prefs) < MaxItems; {
		var elem string
		elem, rest, _ = strings.Cut(rest, ",")
		// Empty and invalid elements are skipped (RFC 9110 §5.6.1 asks it of empty ones).
		if p, ok := parsePreference(elem); ok {
			prefs = append(prefs, p)
		}
	}

	best, bestWeight := "", 0.0
	for _, p := range prefs {
		lang := p.lang
		if lang == "*" {
			lang = starLanguage(prefs)
		}
		// Strictly greater keeps the first of equal weights; a weight of 0 never wins.
		if lang != "" && p.weight > bestWeight {
			best, bestWeight = lang, p.weight
		}
	}
	return cmp.Or(best, Default)
}

// parsePreference parses `language-range *( OWS ";" OWS parameter )`. Only the q
// parameter means something; other parameters are ignored, and a malformed q rejects
// the item.
func parsePreference(elem string) (preference, bool) {
	tag, params, _ := strings.Cut(elem, ";")
	tag = textproto.TrimString(tag)
	p := preference{lang: "*", weight: 1}
	if tag != "*" {
		if !isLanguageRange(tag) {
			return preference{}, false
		}
		primary, _, _ := strings.Cut(tag, "-")
		p.lang = primaryLanguages[strings.ToLower(primary)]
	}
	for params != "" {
		var param string
		param, params, _ = strings.Cut(params, ";")
		name, value, ok := strings.Cut(textproto.TrimString(param), "=")
		if !ok || name != "q" && name != "Q" {
			continue
		}
		if p.weight, ok = parseWeight(value); !ok {
			return preference{}, false
		}
	}
	return p, true
}

// isLanguageRange reports whether tag is an RFC 4647 basic language range other than
// "*": 1*8ALPHA *("-" 1*8alphanum).
func isLanguageRange(tag string) bool {
	digits := false // the primary subtag is letters only
	invalid := func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || digits && '0' <= r && r <= '9')
	}
	for sub := range strings.SplitSeq(tag, "-") {
		if len(sub) < 1 || len(sub) > 8 || strings.ContainsFunc(sub, invalid) {
			return false
		}
		digits = true
	}
	return true
}

func notDigit(r rune) bool { return r < '0' || r > '9' }

// parseWeight parses an RFC 9110 §12.4.2 qvalue: "0" ["." 0*3DIGIT] or
// "1" ["." 0*3"0"].
func parseWeight(s string) (float64, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole != "0" && whole != "1" || len(frac) > 3 || strings.ContainsFunc(frac, notDigit) {
		return 0, false
	}
	w, err := strconv.ParseFloat(s, 64)
	return w, err == nil && w <= 1
}

// starLanguage returns what "*" stands for: the first of skygate.Languages that prefs
// do not name, or "" when they name them all.
func starLanguage(prefs []preference) string {
	for _, lang := range skygate.Languages {
		if !slices.ContainsFunc(prefs, func(p preference) bool { return p.lang == lang }) {
			return lang
		}
	}
	return ""
}
