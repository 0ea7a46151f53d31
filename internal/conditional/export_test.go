package conditional

// Exported for the test of the word-at-a-time check.
var (
	ValidOpaque = validOpaque
	Etagcs      = etagcs
)
