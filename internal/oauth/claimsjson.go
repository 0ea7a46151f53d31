package oauth

import (
	"strconv"

	"github.com/skygate/skygate/internal/jsonstring"
)

// appendJSON appends the token payload of c, byte for byte what json.Marshal(c.wire())
// writes (TestClaimsJSON holds it to that): encoding/json's reflection cost a tenth of
// issuing a token, as much as everything else but the signature.
func (c *Claims) appendJSON(b []byte) []byte {
	b = append(b, `{"iss":`...)
	b = appendString(b, c.Issuer)
	b = append(b, `,"sub":`...)
	b = appendString(b, c.Subject)
	b = append(b, `,"aud":`...)
	if len(c.Audience) == 1 {
		b = appendString(b, c.Audience[0]) // audience's MarshalJSON: one is a string
	} else {
		b = appendStrings(b, c.Audience)
	}
	b = append(b, `,"client_id":`...)
	b = appendString(b, c.ClientID)
	if c.AccountID != "" {
		b = append(b, `,"account_id":`...)
		b = appendString(b, c.AccountID)
	}
	b = append(b, `,"scopes":`...)
	if c.Scopes == nil {
		b = append(b, "[]"...) // wire: always an array
	} else {
		b = appendStrings(b, c.Scopes)
	}
	if len(c.Roles) > 0 {
		b = append(b, `,"roles":`...)
		b = appendStrings(b, c.Roles)
	}
	b = append(b, `,"exp":`...)
	b = strconv.AppendInt(b, c.ExpiresAt.Unix(), 10)
	b = append(b, `,"iat":`...)
	b = strconv.AppendInt(b, c.IssuedAt.Unix(), 10)
	b = append(b, `,"jti":`...)
	b = appendString(b, c.ID)
	if c.CertThumbprint != "" {
		b = append(b, `,"cnf":{"x5t#S256":`...)
		b = appendString(b, c.CertThumbprint)
		b = append(b, '}')
	}
	if c.Generation != 0 {
		b = append(b, `,"gen":`...)
		b = strconv.AppendInt(b, int64(c.Generation), 10)
	}
	return append(b, '}')
}

// appendJSON appends r as json.Marshal writes it (TestTokenResponseJSON).
func (r *TokenResponse) appendJSON(b []byte) []byte {
	b = append(b, `{"access_token":`...)
	b = appendString(b, r.AccessToken)
	b = append(b, `,"token_type":`...)
	b = appendString(b, r.TokenType)
	b = append(b, `,"expires_in":`...)
	b = strconv.AppendInt(b, r.ExpiresIn, 10)
	if r.Scope != "" {
		b = append(b, `,"scope":`...)
		b = appendString(b, r.Scope)
	}
	return append(b, '}')
}

// appendString appends s as json.Marshal does (HTML characters escaped).
func appendString(b []byte, s string) []byte { return jsonstring.Append(b, s, true) }

// appendStrings appends ss as json.Marshal writes a []string: null when nil.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}
