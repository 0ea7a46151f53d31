package oauth

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// hostile are strings that need every kind of escape encoding/json knows.
var hostile = []string{"", "plain", `q"b\s`, "<script>&amp;</script>", "ctl\x00\x01\n\r\t\x1f", "bad\xff\xfeutf8",
	"line\u2028para\u2029", "ünïcödé ✈ 空港", "sk_live_0123456789abcdefghijklmnopqrstuvwxyz"}

// wire and audience.MarshalJSON are the token payload as encoding/json wrote it before
// appendJSON, kept as TestClaimsJSON's reference.
func (c *Claims) wire() *wireClaims {
	exp, iat := numericDate(c.ExpiresAt.Unix()), numericDate(c.IssuedAt.Unix())
	w := &wireClaims{
		Iss: c.Issuer, Sub: c.Subject, Aud: c.Audience, ClientID: c.ClientID,
		AccountID: c.AccountID, Scopes: c.Scopes, Roles: c.Roles,
		Exp: &exp, Iat: &iat, Jti: c.ID, Gen: c.Generation,
	}
	if w.Scopes == nil {
		w.Scopes = []string{} // always an array, never null
	}
	if c.CertThumbprint != "" {
		w.Cnf = &confirmation{X5tS256: c.CertThumbprint}
	}
	return w
}

func (a audience) MarshalJSON() ([]byte, error) {
	if len(a) == 1 {
		return json.Marshal(a[0])
	}
	return json.Marshal([]string(a))
}

// TestClaimsJSON: the hand-written payload is json.Marshal(wire()) byte for byte, for
// every shape of claims (one audience or several or none, nil and empty lists, B2B and
// employee) and every kind of escape.
func TestClaimsJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 3, 4, 5, 0, time.UTC)
	var cases []Claims
	for _, aud := range [][]string{nil, {}, {"https://api.skygate.example"}, {"a", "b<"}} {
		for _, scopes := range [][]string{nil, {}, {"catalog:lounges:read", "booking:write"}} {
			for _, roles := range [][]string{nil, {}, {"admin", "auditor"}} {
				cases = append(cases, Claims{Issuer: "https://id.example", Subject: "sub", Audience: aud, ClientID: "cid",
					AccountID: "acc", Scopes: scopes, Roles: roles, IssuedAt: at, ExpiresAt: at.Add(time.Hour), ID: "jti"})
			}
		}
	}
	for _, s := range hostile {
		cases = append(cases, Claims{Issuer: s, Subject: s, Audience: []string{s}, ClientID: s, AccountID: s,
			Scopes: []string{s, s}, Roles: []string{s}, IssuedAt: time.Unix(0, 0), ExpiresAt: time.Unix(1<<40, 0), ID: s})
		// Certificate-bound (RFC 8705): the thumbprint is base64url when issued here.
		cases = append(cases, Claims{Issuer: "https://id.example", Subject: "sub", Audience: []string{"a"}, ClientID: "cid",
			AccountID: "acc", IssuedAt: at, ExpiresAt: at.Add(time.Hour), ID: "jti", CertThumbprint: s + "uG2T6TrlBbL3n2mGXQ7Vd3aUeYqJ0w4Sg1kF3s0yNfE"})
	}
	// The revocation generation of the token's application: omitted while 0, and
	// with or without cnf.
	for _, gen := range []int{0, 1, 9, 10, 35, math.MaxInt32, math.MaxInt} {
		for _, thumb := range []string{"", "uG2T6TrlBbL3n2mGXQ7Vd3aUeYqJ0w4Sg1kF3s0yNfE"} {
			cases = append(cases, Claims{Issuer: "https://id.example", Subject: "sub", Audience: []string{"a"}, ClientID: "cid",
				AccountID: "acc", Scopes: []string{"catalog:lounges:read"}, IssuedAt: at, ExpiresAt: at.Add(time.Hour), ID: "jti",
				CertThumbprint: thumb, Generation: gen})
		}
	}
	for _, c := range cases {
		want, err := json.Marshal(c.wire())
		if err != nil {
			t.Fatal(err)
		}
		if got := c.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON(%+v)\n got %s\nwant %s", c, got, want)
		}
	}
}

// TestTokenResponseJSON: the same for the token endpoint's answer.
func TestTokenResponseJSON(t *testing.T) {
	t.Parallel()
	for _, s := range hostile {
		for _, r := range []TokenResponse{{AccessToken: s, TokenType: "Bearer", ExpiresIn: 3600, Scope: s}, {AccessToken: s, TokenType: s}} {
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.appendJSON(nil); string(got) != string(want) {
				t.Errorf("appendJSON(%+v)\n got %s\nwant %s", r, got, want)
			}
		}
	}
}
