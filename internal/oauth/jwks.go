package oauth

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// jwk is the public JWK of a signing key, as published in the JWKS.
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
}

// publicJWK returns the JWK of pub, whose kid is its RFC 7638 thumbprint: the
// base64url SHA-256 of the required members in lexicographic order.
func publicJWK(pub *ecdsa.PublicKey) (jwk, error) {
	point, err := pub.Bytes() // 0x04 || X || Y, each 32 bytes for P-256
	if err != nil {
		return jwk{}, err
	}
	enc := base64.RawURLEncoding
	k := jwk{
		Kty: "EC", Crv: "P-256", Use: "sig", Alg: "ES256",
		X: enc.EncodeToString(point[1:33]),
		Y: enc.EncodeToString(point[33:65]),
	}
	sum := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + k.X + `","y":"` + k.Y + `"}`))
	k.Kid = enc.EncodeToString(sum[:])
	return k, nil
}

// encodeJWKS returns the JWKS document of keys.
func encodeJWKS(keys []jwk) []byte {
	if keys == nil {
		keys = []jwk{}
	}
	b, _ := json.Marshal(struct {
		Keys []jwk `json:"keys"`
	}{keys}) // only strings: cannot fail
	return b
}

// JWKS returns the JWK Set of every key that may have signed a live token: keys not
// yet active, the current key, and retired keys until their retention has passed. The
// bytes are computed by Reload, Rotate and EnsureKey; the caller must not modify them.
func (m *KeyManager) JWKS() []byte { return m.set.Load().jwks }

// JWKSHandler serves JWKS at GET /.well-known/jwks.json. Verifiers may cache it for 5
// minutes, which is why a rotation must pre-publish a key for longer than that.
func (m *KeyManager) JWKSHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=300")
		w.Write(m.JWKS())
	})
}
