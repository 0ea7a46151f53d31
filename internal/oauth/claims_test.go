package oauth

import (
	"bytes"
	"encoding/json"
	jsonv2 "encoding/json/v2"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostile are strings that need every kind of escape encoding/json knows.
var hostile = []string{"", "plain", `q"b\s`, "<script>&amp;</script>", "ctl\x00\x01\n\r\t\x1f", "bad\xff\xfeutf8",
	"line\u2028para\u2029", "ünïcödé ✈ 空港", "sk_live_0123456789abcdefghijklmnopqrstuvwxyz"}

// valid is s as encoding/json writes it: each byte of invalid UTF-8 becomes U+FFFD.
func valid(s string) string { return string([]rune(s)) }

// referencePayload is the token payload of c as a generic JSON value: the wire format
// that Issue has always written, built without wireClaims.
func referencePayload(c Claims) map[string]any {
	strs := func(ss []string) []any {
		out := []any{}
		for _, s := range ss {
			out = append(out, valid(s))
		}
		return out
	}
	m := map[string]any{
		"iss": valid(c.Issuer), "sub": valid(c.Subject), "client_id": valid(c.ClientID), "jti": valid(c.ID),
		"exp":    json.Number(strconv.FormatInt(c.ExpiresAt.Unix(), 10)),
		"iat":    json.Number(strconv.FormatInt(c.IssuedAt.Unix(), 10)),
		"scopes": strs(c.Scopes), // always an array
	}
	switch {
	case c.Audience == nil:
		m["aud"] = nil
	case len(c.Audience) == 1:
		m["aud"] = valid(c.Audience[0]) // one audience is a string
	default:
		m["aud"] = strs(c.Audience)
	}
	if len(c.Scopes) > 0 {
		m["scope"] = valid(strings.Join(c.Scopes, " ")) // RFC 9068 §2.2.3
	}
	if c.AccountID != "" {
		m["account_id"] = valid(c.AccountID)
	}
	if len(c.Roles) > 0 {
		m["roles"] = strs(c.Roles)
	}
	if c.CertThumbprint != "" {
		m["cnf"] = map[string]any{"x5t#S256": valid(c.CertThumbprint)}
	}
	if c.Generation != 0 {
		m["gen"] = json.Number(strconv.Itoa(c.Generation))
	}
	return m
}

// TestClaimsJSON: the payload that Issue signs has the wire format, and Verify's decoder
// reads it back, for every shape of claims (one audience or several or none, nil and
// empty lists, B2B and employee) and every kind of escape.
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
		payload, err := json.Marshal(c.wire())
		if err != nil {
			t.Fatal(err)
		}
		var got any
		dec := json.NewDecoder(bytes.NewReader(payload))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatal(err)
		}
		if want := referencePayload(c); !reflect.DeepEqual(got, any(want)) {
			t.Errorf("payload of %+v\n got %s\nwant %v", c, payload, want)
		}
		var w wireClaims
		if err := jsonv2.Unmarshal(payload, &w); err != nil {
			t.Fatalf("decode %s: %v", payload, err)
		}
		back := w.claims()
		if back.Subject != valid(c.Subject) || back.AccountID != valid(c.AccountID) || back.Generation != c.Generation ||
			back.CertThumbprint != valid(c.CertThumbprint) || !back.ExpiresAt.Equal(c.ExpiresAt) || !back.IssuedAt.Equal(c.IssuedAt) ||
			len(back.Scopes) != len(c.Scopes) || len(back.Audience) != len(c.Audience) {
			t.Errorf("decoded %s as %+v", payload, back)
		}
	}
}

// TestTokenResponseJSON: the token endpoint's answer has the RFC 6749 §5.1 members,
// scope only when there is one, for every kind of escape.
func TestTokenResponseJSON(t *testing.T) {
	t.Parallel()
	for _, s := range hostile {
		for _, r := range []TokenResponse{{AccessToken: s, TokenType: "Bearer", ExpiresIn: 3600, Scope: s}, {AccessToken: s, TokenType: s}} {
			body, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"access_token": valid(r.AccessToken), "token_type": valid(r.TokenType), "expires_in": float64(r.ExpiresIn)}
			if r.Scope != "" {
				want["scope"] = valid(r.Scope)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%+v: body %s", r, body)
			}
		}
	}
}
