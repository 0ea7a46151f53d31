package i18n

import (
	"strings"

	"golang.org/x/text/language"

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

// matcher matches primary language subtags against skygate.Languages; its indexes are
// those of skygate.Languages.
var matcher = language.NewMatcher(supportedTags())

func supportedTags() []language.Tag {
	tags := make([]language.Tag, len(skygate.Languages))
	for i, lang := range skygate.Languages {
		tags[i] = language.MustParse(lang)
	}
	return tags
}

// Negotiate returns the response language for an Accept-Language header value: one of
// skygate.Languages, never anything else. The rules are in the package documentation.
func Negotiate(header string) string {
	// ParseAcceptLanguage drops the items weighted 0 and orders the rest by weight,
	// keeping the order of the header among equal weights.
	tags, _, err := language.ParseAcceptLanguage(limit(header))
	if err != nil {
		return Default
	}
	for i, t := range tags {
		// Only an explicit primary language subtag counts; the script and region do
		// not. A range without one (private use, und) matches nothing; "*" is the
		// tag mul, which matches nothing either.
		if base, c := t.Base(); c == language.Exact {
			tags[i], _ = language.Compose(base)
		} else {
			tags[i] = language.Und
		}
	}
	// Exact is the confidence of an equal language, or of a member of a supported
	// macrolanguage (uzn is uz); lower ones are guesses across languages (ky is read
	// in ru), which the contract excludes.
	_, i, c := matcher.Match(tags...)
	if c != language.Exact {
		return Default
	}
	return skygate.Languages[i]
}

// limit returns the part of header that Negotiate reads: its first MaxHeaderBytes,
// cut at a comma so that no element is read half, and of that its first MaxItems
// elements.
func limit(header string) string {
	if len(header) > MaxHeaderBytes {
		i := strings.LastIndexByte(header[:MaxHeaderBytes], ',')
		if i < 0 {
			return ""
		}
		header = header[:i]
	}
	rest := header
	for range MaxItems {
		_, after, found := strings.Cut(rest, ",")
		if !found {
			return header
		}
		rest = after
	}
	return header[:len(header)-len(rest)-1]
}
