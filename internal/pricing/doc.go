// Package pricing owns the commercial settings employees make for fast-tracks: every
// account's price list (validated against the current catalog, audited) and the
// airport's capacity per one-hour slot of each fast-track, which an admin may set over
// the catalog record's. It also renders the fast-track catalog with the calling
// account's prices (catalog.Service.PricedList).
package pricing
