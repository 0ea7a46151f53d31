package oauth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"
)

// TestKIDIsThumbprint: every published kid is the RFC 7638 thumbprint of its key,
// recomputed here from the JWK's members as the RFC spells it out.
func TestKIDIsThumbprint(t *testing.T) {
	t.Parallel()
	f := setup(t)
	MustRotate(t, f.keys, 0)
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(f.keys.JWKS(), &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 2 {
		t.Fatalf("JWKS holds %d keys, want 2", len(set.Keys))
	}
	for _, k := range set.Keys {
		if k["kty"] != "EC" || k["crv"] != "P-256" || k["alg"] != "ES256" || k["use"] != "sig" || len(k["x"]) != 43 || len(k["y"]) != 43 {
			t.Fatalf("JWK %v", k)
		}
		sum := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + k["x"] + `","y":"` + k["y"] + `"}`))
		if want := base64.RawURLEncoding.EncodeToString(sum[:]); k["kid"] != want {
			t.Errorf("kid %q, want the thumbprint %q", k["kid"], want)
		}
	}
}
