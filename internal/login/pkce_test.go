package login

import (
	"strings"
	"testing"
)

// RFC 7636 Appendix B.
const (
	rfcVerifier  = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
)

func TestS256(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		verifier  string
		challenge string
		want      bool
	}{
		{"RFC 7636 example", rfcVerifier, rfcChallenge, true},
		{"wrong verifier", rfcVerifier[:42] + "l", rfcChallenge, false},
		{"plain: verifier equals challenge", rfcChallenge, rfcChallenge, false},
		{"empty", "", rfcChallenge, false},
		{"padded challenge", rfcVerifier, rfcChallenge + "=", false},
	}
	for _, tt := range tests {
		if got := verifierMatches(tt.verifier, tt.challenge); got != tt.want {
			t.Errorf("%s: verifierMatches = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestValidVerifierAndChallenge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s                   string
		verifier, challenge bool
	}{
		{rfcVerifier, true, true},
		{strings.Repeat("a", 42), false, false},
		{strings.Repeat("a", 43), true, true},
		{strings.Repeat("a", 128), true, true},
		{strings.Repeat("a", 129), false, false},
		{strings.Repeat("a", 42) + "~", true, false},
		{strings.Repeat("a", 42) + ".", true, false},
		{strings.Repeat("a", 42) + "=", false, false},
		{strings.Repeat("a", 42) + "+", false, false},
		{strings.Repeat("a", 42) + "/", false, false},
		{strings.Repeat("a", 42) + " ", false, false},
		{strings.Repeat("a", 42) + "é", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := validVerifier(tt.s); got != tt.verifier {
			t.Errorf("validVerifier(%q) = %v", tt.s, got)
		}
		if got := validChallenge(tt.s); got != tt.challenge {
			t.Errorf("validChallenge(%q) = %v", tt.s, got)
		}
	}
}
