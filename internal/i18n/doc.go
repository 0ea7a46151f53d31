// Package i18n owns language negotiation: it turns an Accept-Language header into one of
// the catalog languages (skygate.Languages). Parsing and matching are those of
// golang.org/x/text/language (ParseAcceptLanguage, Matcher); this package adds the input
// limits and the contract's rule that only the language itself counts.
//
// The rules, which the OpenAPI document repeats:
//
//   - The header is an RFC 9110 §12.5.4 list of BCP 47 language ranges, each with an
//     optional weight "q=" (lower-case q), read as a decimal number. Items without a
//     weight weigh 1; items weighted 0 or less are ignored.
//   - Every range is reduced to its primary language subtag, case-insensitively: ru-RU
//     is ru, uz-Latn-UZ is uz, kk-KZ is kk. The script is not considered, so uz-Cyrl is
//     answered in uz, which the service writes in the Latin script. Aliases the library
//     knows count as the language (three-letter codes such as rus, kaz and uzb, and
//     uzn, a member of the macrolanguage uz); other languages never do, even those
//     whose speakers often read one of ours (ky, be).
//   - The supported language with the highest weight wins; among equal weights the one
//     named first wins.
//   - "*", private-use ranges and und match nothing; a named supported language, however
//     low its weight, wins over them.
//   - A header that is not a valid list counts as absent: one malformed range or weight,
//     a parameter other than q, or a well-formed subtag the library does not know (the
//     language xx) invalidates all of it. When nothing matches (empty, invalid or
//     unsupported header) the answer is en; the service never answers 406.
//   - Only the first 1 KiB of the header, cut at its last comma, and of that the first
//     32 comma-separated elements are read.
package i18n
