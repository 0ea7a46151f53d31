package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"
)

// Claims are the claims of a Skygate access token (RFC 9068 profile).
//
// For a B2B client Subject and ClientID are the application's client_id and AccountID
// is its account; for an employee Subject is the employee's identifier at the identity
// provider, AccountID is empty and Roles lists the employee's roles.
type Claims struct {
	Issuer    string
	Subject   string
	Audience  []string
	ClientID  string
	AccountID string
	Scopes    []string
	Roles     []string
	IssuedAt  time.Time
	ExpiresAt time.Time
	// ID is the jti, unique per token.
	ID string
	// CertThumbprint is the cnf claim's x5t#S256 (RFC 8705 §3.1): the base64url SHA-256
	// of the DER of the client certificate the token is bound to, "" for an unbound
	// token. A bound token is good only over mutual TLS with that certificate.
	CertThumbprint string
	// Generation is the gen claim, private to Skygate: the TokenGeneration of the
	// token's application when it was issued (B2B only), omitted when 0. A token whose
	// application has revoked its tokens since carries a lower generation than the
	// application's.
	Generation int
}

// Principal names whom the token acts for, the unit that per-caller limits count:
// "account:ID" for a B2B token, "employee:SUB" for an employee's.
func (c *Claims) Principal() string {
	if c.AccountID != "" {
		return "account:" + c.AccountID
	}
	return "employee:" + c.Subject
}

// HasScope reports whether the token grants scope.
func (c *Claims) HasScope(scope string) bool { return slices.Contains(c.Scopes, scope) }

// wireClaims is the JSON payload of a token: Issue encodes it with encoding/json and
// Verify decodes it with encoding/json/v2, which refuses duplicate member names and
// invalid UTF-8. The times are NumericDate values: whole seconds when issued here;
// fractions are accepted when read (RFC 7519 §2).
type wireClaims struct {
	Iss       string   `json:"iss"`
	Sub       string   `json:"sub"`
	Aud       audience `json:"aud"`
	ClientID  string   `json:"client_id"`
	AccountID string   `json:"account_id,omitempty"`
	Scopes    []string `json:"scopes"`
	// Scope is Scopes joined with spaces, the scope claim of RFC 9068 §2.2.3 beside the
	// spec's scopes array; omitted when there are none. Verify reads scopes only.
	Scope string       `json:"scope,omitempty"`
	Roles []string     `json:"roles,omitempty"`
	Exp   *numericDate `json:"exp"`
	Iat   *numericDate `json:"iat"`
	Nbf   *numericDate `json:"nbf,omitempty"`
	Jti   string       `json:"jti"`

	// Cnf binds the token to a client certificate; absent when unbound.
	Cnf *confirmation `json:"cnf,omitempty"`
	// Gen is Claims.Generation. Decoding refuses a number that is not an integer or
	// does not fit; checkClaims refuses a negative one.
	Gen int `json:"gen,omitempty"`
}

// confirmation is the cnf claim (RFC 7800) with the one confirmation method issued
// here, the certificate thumbprint of RFC 8705.
type confirmation struct {
	X5tS256 string `json:"x5t#S256"`
}

// wire returns the payload of c. scopes is always an array, never null.
func (c *Claims) wire() *wireClaims {
	exp, iat := numericDate(c.ExpiresAt.Unix()), numericDate(c.IssuedAt.Unix())
	w := &wireClaims{
		Iss: c.Issuer, Sub: c.Subject, Aud: c.Audience, ClientID: c.ClientID,
		AccountID: c.AccountID, Scopes: c.Scopes, Scope: strings.Join(c.Scopes, " "), Roles: c.Roles,
		Exp: &exp, Iat: &iat, Jti: c.ID, Gen: c.Generation,
	}
	if w.Scopes == nil {
		w.Scopes = []string{}
	}
	if c.CertThumbprint != "" {
		w.Cnf = &confirmation{X5tS256: c.CertThumbprint}
	}
	return w
}

func (w *wireClaims) claims() *Claims {
	c := &Claims{
		Issuer: w.Iss, Subject: w.Sub, Audience: w.Aud, ClientID: w.ClientID,
		AccountID: w.AccountID, Scopes: w.Scopes, Roles: w.Roles,
		IssuedAt: w.Iat.time(), ExpiresAt: w.Exp.time(), ID: w.Jti, Generation: w.Gen,
	}
	if w.Cnf != nil {
		c.CertThumbprint = w.Cnf.X5tS256
	}
	return c
}

// audience is the aud claim: one string (the common form, and what Issue writes for
// one audience) or an array.
type audience []string

func (a audience) MarshalJSON() ([]byte, error) {
	if len(a) == 1 {
		return json.Marshal(a[0])
	}
	return json.Marshal([]string(a))
}

func (a *audience) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(b, []byte(`"`)) {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = audience{s}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(a))
}

// numericDate is seconds since the epoch.
type numericDate int64

func (d *numericDate) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if math.IsNaN(f) || f < 0 || f > math.MaxInt32*1000 {
		return errors.New("numeric date out of range")
	}
	*d = numericDate(math.Floor(f))
	return nil
}

func (d *numericDate) time() time.Time {
	if d == nil {
		return time.Time{}
	}
	return time.Unix(int64(*d), 0)
}
