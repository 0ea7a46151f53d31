package httpapi

import (
	"strconv"
	"strings"
)

// acceptQuality returns the weight (0 to 1) an Accept header gives mediaType
// ("type/subtype", lower case) by RFC 9110 §12.5.1: the most specific range that
// matches it decides (type/subtype over type/* over */*), whatever the order, so
// "text/csv;q=0, */*" refuses text/csv. An absent header accepts everything (1); a
// header that names no matching range gives 0. A q that is not a number from 0 to 1
// is ignored (the range weighs 1), as acceptsPNG treats it.
func acceptQuality(accept, mediaType string) float64 {
	if strings.TrimSpace(accept) == "" {
		return 1
	}
	typ, _, _ := strings.Cut(mediaType, "/")
	best, quality := 0, 0.0 // best: specificity of the range that decides so far
	for part := range strings.SplitSeq(accept, ",") {
		rng, params, _ := strings.Cut(part, ";")
		rng = strings.ToLower(strings.TrimSpace(rng))
		var specificity int
		switch {
		case rng == mediaType:
			specificity = 3
		case rng == typ+"/*":
			specificity = 2
		case rng == "*/*":
			specificity = 1
		default:
			continue
		}
		q := rangeWeight(params)
		switch {
		case specificity > best:
			best, quality = specificity, q
		case specificity == best:
			quality = max(quality, q)
		}
	}
	return quality
}

// rangeWeight returns the q parameter of a media range's parameters (1 when absent
// or invalid).
func rangeWeight(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
			return f
		}
	}
	return 1
}
