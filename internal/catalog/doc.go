// Package catalog owns the airport catalog: the embedded seed document, its validation,
// the localized and precomputed serving form, query parsing, and the Service that keeps
// the current catalog in step with skygate.CatalogStore.
//
// Load turns a document into a Catalog: every lounge and fast-track localized in every
// language, each language's list sorted, and the page of every item encoded. A list
// request filters and pages a list and encodes the page with encoding/json; the page
// is kept in a bounded cache of the Catalog keyed by kind, language and normalized
// query (docs/decisions/0100-catalog-page-cache.md says why). A Catalog is immutable; a
// new document makes a new Catalog.
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
