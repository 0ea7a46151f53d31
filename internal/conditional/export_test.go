package conditional

// ValidOpaque is exported for its test.
var ValidOpaque = validOpaque
