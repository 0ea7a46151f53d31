// Package catalog owns the airport catalog: the embedded seed document, its validation,
// the localized and precomputed serving form, query parsing, and the Service that keeps
// the current catalog in step with skygate.CatalogStore.
//
// Serving is built for the hot path. Load turns a document into one view per language in
// which every lounge and fast-track is already localized, encoded as JSON and carries its
// folded name for the name filter. A list request filters those views, pages them and
// joins the pre-encoded items; the result is cached (bounded LRU) per kind, language and
// normalized query, so a repeated request does no JSON encoding and no allocation. A
// Catalog is immutable; a new document makes a new Catalog.
//
// Decisions the OpenAPI document repeats:
//
//   - Lists are ordered by hub IATA code, then terminal, then localized name, then id; the
//     order may differ between languages.
//   - Query parameters: limit 1–500 (default 100), offset 0–1,000,000 (default 0), name at
//     most 64 characters without control characters, iata three letters, country two
//     letters (both case-insensitive). An empty value counts as absent; a parameter given
//     twice, or out of range, is 400 BadRequest naming the parameter. Unknown parameters
//     are ignored.
//   - The name filter is a case-insensitive substring match on the localized name of the
//     response language, after NFC normalization and folding (Unicode lower case; İ/ı as
//     i, ё as е, typographic apostrophes and Uzbek ʻ/ʼ as ', dashes as -). Leading and
//     trailing spaces are ignored. It is applied before paging.
//   - Inactive items are listed, with is_active false.
//   - ETag is a strong tag derived from the catalog content, the kind, the language and the
//     normalized query (so "ТАШ" and "таш" share one); Last-Modified is when the catalog
//     document was stored.
package catalog
