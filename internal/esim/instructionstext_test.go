package esim

import (
	"strings"
	"testing"

	"github.com/skygate/skygate"
)

// TestInstructionsUzbekApostrophes: the instructions' Uzbek writes oʻ and gʻ with ʻ
// (U+02BB) and the apostrophe with ʼ (U+02BC), never with ‘ (U+2018) or ’ (U+2019).
func TestInstructionsUzbekApostrophes(t *testing.T) {
	t.Parallel()
	texts := append(append([]skygate.LocalizedText{iosAPN, androidAPN, apnUsername, apnPassword}, iosSteps...), androidSteps...)
	for _, text := range texts {
		if strings.ContainsAny(text.UZ, "\u2018\u2019") {
			t.Errorf("uz %q has ‘ or ’; write ʻ (U+02BB) or ʼ (U+02BC)", text.UZ)
		}
	}
}
