package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/skygate/skygate/internal/oauth"
)

// privateKeyJWTHostile returns the hostile cases of private_key_jwt: malformed and
// oversized client assertions at the token endpoint (RFC 6749 error bodies, never a
// 5xx), and JWK Sets an employee should not be able to store, on an application of
// the account it creates.
func (s *testServer) privateKeyJWTHostile(t *testing.T, c credentials, admin string) []hostileCase {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p := &pkjClient{kid: "hostile", alg: jose.ES256, key: key}
	appID, _ := s.mustPKJApplication(p)

	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	tokenCase := func(name string, want int, kv ...string) hostileCase {
		v := url.Values{"grant_type": {"client_credentials"}}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return hostileCase{name: name, method: "POST", path: oauth.TokenPath, header: form, body: v.Encode(), want: want, format: "oauth"}
	}
	typ := "client_assertion_type"
	signedAs := func(iss, kid string) string {
		q := &pkjClient{clientID: iss, kid: kid, alg: jose.ES256, key: key}
		return q.assertion(t)
	}
	adminJSON := map[string]string{"Authorization": "Bearer " + admin, "Content-Type": "application/json"}
	patch := func(name, body string, want int) hostileCase {
		return hostileCase{name: name, method: "PATCH", path: "/api/v1/admin/applications/" + appID, header: adminJSON, body: body, want: want}
	}
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	smallJWK, _ := json.Marshal(jose.JSONWebKey{Key: small.Public(), KeyID: "small"})
	manyKeys := `{"jwks":{"keys":[` + strings.TrimSuffix(strings.Repeat(`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k"},`, 11), ",") + `]}}`
	b64 := base64.RawURLEncoding.EncodeToString

	return []hostileCase{
		tokenCase("assertion with NUL", 401, typ, oauth.ClientAssertionType, "client_assertion", p.assertion(t)+"\x00"),
		tokenCase("assertion of 60 KiB", 401, typ, oauth.ClientAssertionType, "client_assertion", strings.Repeat("a.", 30<<10)),
		tokenCase("assertion alg none", 401, typ, oauth.ClientAssertionType, "client_assertion",
			b64([]byte(`{"alg":"none"}`))+"."+b64([]byte(`{"iss":"`+p.clientID+`","sub":"`+p.clientID+`","aud":"`+testPublicURL+`","exp":9999999999,"jti":"x"}`))+"."),
		tokenCase("assertion jti with NUL", 401, typ, oauth.ClientAssertionType, "client_assertion",
			(&pkjClient{clientID: p.clientID, kid: "hostile", alg: jose.ES256, key: key, jti: "a\x00b"}).assertion(t)),
		tokenCase("assertion iss with NUL", 401, typ, oauth.ClientAssertionType, "client_assertion", signedAs(p.clientID+"\x00", "hostile")),
		tokenCase("assertion iss of 8 KiB", 401, typ, oauth.ClientAssertionType, "client_assertion", signedAs(strings.Repeat("i", 8<<10), "hostile")),
		tokenCase("assertion kid of 8 KiB", 401, typ, oauth.ClientAssertionType, "client_assertion", signedAs(p.clientID, strings.Repeat("k", 8<<10))),
		tokenCase("assertion in JWS JSON serialization", 401, typ, oauth.ClientAssertionType, "client_assertion", `{"payload":"e30","signatures":[]}`),
		tokenCase("assertion type with NUL", 401, typ, oauth.ClientAssertionType+"\x00", "client_assertion", p.assertion(t)),
		tokenCase("assertion without type", 400, "client_assertion", p.assertion(t)),
		tokenCase("assertion beside a secret", 400, "client_id", c.ClientID, "client_secret", c.ClientSecret, typ, oauth.ClientAssertionType, "client_assertion", p.assertion(t)),
		{name: "assertion as a JSON number", method: "POST", path: oauth.TokenPath, header: map[string]string{"Content-Type": "application/json"},
			body: `{"grant_type":"client_credentials","client_assertion_type":"` + oauth.ClientAssertionType + `","client_assertion":1}`, want: 400, format: "oauth"},

		patch("admin PATCH jwks with a private key", `{"jwks":{"keys":[{"kty":"EC","crv":"P-256","kid":"e","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cLyQkH9WFiaR6QZOvh5Rxo"}]}}`, 422),
		patch("admin PATCH jwks with 11 keys", manyKeys, 422),
		patch("admin PATCH jwks of 1 MiB", `{"jwks":{"keys":[],"x":"`+strings.Repeat("x", 1<<20)+`"}}`, 0),
		patch("admin PATCH jwks with RSA of 1024 bits", `{"jwks":{"keys":[`+string(smallJWK)+`]}}`, 422),
		patch("admin PATCH jwks keys null", `{"jwks":{"keys":null}}`, 422),
		patch("admin PATCH jwks with NUL in kid", `{"jwks":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"a\u0000"}]}}`, anyStatus),
		patch("admin PATCH jwks twice", `{"jwks":null,"jwks":null}`, 400),
		patch("admin PATCH unknown member", `{"name":"x"}`, 400),
		patch("admin PATCH jwks a string", `{"jwks":"keys"}`, 422),
		{name: "admin PATCH application id with NUL", method: "PATCH", path: "/api/v1/admin/applications/a%00", header: adminJSON, body: `{"jwks":null}`, want: 404},
		{name: "admin PATCH as text/plain", method: "PATCH", path: "/api/v1/admin/applications/" + appID,
			header: map[string]string{"Authorization": "Bearer " + admin, "Content-Type": "text/plain"}, body: `{"jwks":null}`, want: http.StatusUnsupportedMediaType},
	}
}
