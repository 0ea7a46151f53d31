package login

import (
	"crypto/subtle"
	"strings"

	"golang.org/x/oauth2"
)

// validChallenge reports whether s is a code_challenge the service accepts: 43 to 128
// characters of the base64url alphabet. An S256 challenge, the only method accepted,
// is always exactly 43; the wider range only keeps the error message about length
// rather than about method for odd clients.
func validChallenge(s string) bool { return pkceString(s, "-_") }

// validVerifier reports whether s is an RFC 7636 §4.1 code_verifier: 43 to 128
// characters of [A-Za-z0-9-._~]. x/oauth2 generates verifiers but validates none, so
// this check and validChallenge stay here.
func validVerifier(s string) bool { return pkceString(s, "-._~") }

// pkceString reports whether s is 43 to 128 ASCII letters, digits and bytes of extra.
func pkceString(s, extra string) bool {
	return len(s) >= 43 && len(s) <= 128 && !strings.ContainsFunc(s, func(c rune) bool {
		return !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.ContainsRune(extra, c))
	})
}

// verifierMatches reports, in constant time, whether verifier's S256 challenge
// (base64url(SHA-256(verifier)), as x/oauth2 computes it) is challenge. The plain
// method is never accepted, so a verifier equal to the challenge does not match.
func verifierMatches(verifier, challenge string) bool {
	return subtle.ConstantTimeCompare([]byte(oauth2.S256ChallengeFromVerifier(verifier)), []byte(challenge)) == 1
}
