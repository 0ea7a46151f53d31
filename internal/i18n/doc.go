// Package i18n owns language negotiation: it turns an Accept-Language header into one of
// the catalog languages (skygate.Languages).
//
// The rules, which the OpenAPI document repeats:
//
//   - The header is an RFC 9110 §12.5.4 list of BCP 47 language ranges, each with an
//     optional weight "q" (0 to 1, at most three decimals). Items without q weigh 1.
//   - Every range is reduced to its primary language subtag, case-insensitively: ru-RU is
//     ru, uz-Latn-UZ is uz, kk-KZ is kk. The script is not considered, so uz-Cyrl is
//     answered in uz, which the service writes in the Latin script. Three-letter ISO 639-2
//     codes of the supported languages (eng, rus, uzb, uzn, kaz) count as their
//     two-letter codes.
//   - The supported language with the highest weight wins; among equal weights the one
//     named first wins. A weight of 0 means "not acceptable".
//   - "*" stands for every language not named elsewhere in the header: it yields en, or,
//     when en is named, the first of ru, uz, kk that is not.
//   - Items with an invalid range or a malformed weight are skipped. When nothing
//     acceptable is left (empty, invalid or unsupported header, or everything excluded
//     with q=0) the answer is en; the service never answers 406.
//   - Only the first 1 KiB of the header and the first 32 valid items are read.
package i18n
