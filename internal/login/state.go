package login

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// StateTTL is how long a login may take between the start and the callback.
const StateTTL = 10 * time.Minute

// maxStateLen bounds what verifyState looks at.
const maxStateLen = 4096

// Errors of verifyState. Only errStateExpired comes with the (authentic) state.
var (
	errStateInvalid = errors.New("login: state is missing, malformed or not signed by this service")
	errStateExpired = errors.New("login: state has expired")
)

// loginState is the signed state parameter sent to the identity provider. Short
// member names keep the URL short.
type loginState struct {
	// RedirectURI, Challenge and SPAState are the SPA's login request.
	RedirectURI string `json:"r"`
	Challenge   string `json:"c"`
	SPAState    string `json:"s,omitempty"`
	// Nonce is the OIDC nonce of the ID token; the upstream PKCE verifier is derived
	// from it.
	Nonce string `json:"n"`
	// Binding is the base64url SHA-256 of the browser-binding cookie.
	Binding string `json:"b"`
	// Expires is a Unix time in seconds.
	Expires int64 `json:"e"`
}

// keys are the subkeys of the login state key, one per use.
type keys struct {
	state    []byte // HMAC of the state
	upstream []byte // derivation of the upstream PKCE verifier
}

func deriveKeys(stateKey []byte) keys {
	sub := func(label string) []byte {
		m := hmac.New(sha256.New, stateKey)
		m.Write([]byte("skygate/login/" + label))
		return m.Sum(nil)
	}
	return keys{state: sub("state-mac/v1"), upstream: sub("upstream-pkce/v1")}
}

// signState returns base64url(JSON payload) "." base64url(HMAC-SHA256(payload)).
func (k keys) signState(st *loginState) string {
	payload, _ := json.Marshal(st) // strings and an integer: cannot fail
	enc := base64.RawURLEncoding
	p := enc.EncodeToString(payload)
	return p + "." + enc.EncodeToString(k.stateMAC(p))
}

func (k keys) stateMAC(encodedPayload string) []byte {
	m := hmac.New(sha256.New, k.state)
	m.Write([]byte(encodedPayload))
	return m.Sum(nil)
}

// verifyState checks the signature, then the expiry at now. A state whose signature
// fails is errStateInvalid and nothing of it is returned; an authentic state past
// its expiry is returned with errStateExpired, so that the caller may send the error
// to the redirect URI it names.
func (k keys) verifyState(s string, now time.Time) (*loginState, error) {
	if s == "" || len(s) > maxStateLen {
		return nil, errStateInvalid
	}
	p, sig, ok := strings.Cut(s, ".")
	if !ok {
		return nil, errStateInvalid
	}
	enc := base64.RawURLEncoding.Strict()
	mac, err := enc.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, k.stateMAC(p)) {
		return nil, errStateInvalid
	}
	payload, err := enc.DecodeString(p)
	if err != nil {
		return nil, errStateInvalid
	}
	var st loginState
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil || st.RedirectURI == "" || st.Nonce == "" || st.Expires == 0 {
		return nil, errStateInvalid
	}
	if now.Unix() >= st.Expires {
		return &st, errStateExpired
	}
	return &st, nil
}

// upstreamVerifier is the PKCE code_verifier towards the provider for a login: 43
// base64url characters derived from its nonce, so the callback recomputes it and it
// never passes through the browser. oauth2.GenerateVerifier would make a random one
// that the service had to keep from login to callback; x/oauth2 does the rest
// (S256ChallengeOption at login, VerifierOption at the exchange).
func (k keys) upstreamVerifier(nonce string) string {
	m := hmac.New(sha256.New, k.upstream)
	m.Write([]byte(nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// newRandom returns 32 random bytes in base64url (43 characters, 256 bits): nonces,
// browser bindings and one-time codes.
func newRandom() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// bindingHash is what the state keeps of the browser-binding cookie.
func bindingHash(cookie string) string {
	sum := sha256.Sum256([]byte(cookie))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
