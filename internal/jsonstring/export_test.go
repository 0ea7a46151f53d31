package jsonstring

// Exported for the tests of the word-at-a-time scan.
var (
	Special8       = special8
	SpecialHTML8   = specialHTML8
	PlainASCII     = &plainASCII
	PlainASCIIHTML = &plainASCIIHTML
)
