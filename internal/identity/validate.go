package identity

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skygate/skygate"
)

// MaxNameLen bounds account and application names, in characters.
const MaxNameLen = 128

// checkName checks a display name, trimmed: 1–MaxNameLen characters, no control
// characters.
func checkName(field, v string) []skygate.FieldError {
	v = strings.TrimSpace(v)
	msg := ""
	switch {
	case v == "":
		msg = "is required"
	case utf8.RuneCountInString(v) > MaxNameLen:
		msg = fmt.Sprintf("must be at most %d characters", MaxNameLen)
	case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		msg = "must not contain control characters"
	default:
		return nil
	}
	return []skygate.FieldError{{Field: field, Message: msg}}
}

// checkScopes checks an application's allowed scopes: at least one, each a B2B scope.
func checkScopes(field string, scopes []string) []skygate.FieldError {
	if len(scopes) == 0 {
		return []skygate.FieldError{{Field: field, Message: "must list at least one scope"}}
	}
	var fields []skygate.FieldError
	for i, sc := range scopes {
		if !slices.Contains(skygate.B2BScopes, sc) {
			fields = append(fields, skygate.FieldError{Field: fmt.Sprintf("%s[%d]", field, i), Message: "unknown B2B scope " + sc})
		}
	}
	return fields
}

// checkThumbprint checks an optional certificate binding: empty, or the base64url
// (unpadded) SHA-256 of a certificate's DER.
func checkThumbprint(field, v string) []skygate.FieldError {
	if v == "" {
		return nil
	}
	if b, err := base64.RawURLEncoding.DecodeString(v); err != nil || len(b) != 32 {
		return []skygate.FieldError{{Field: field, Message: "must be the base64url (unpadded) SHA-256 of the certificate's DER (x5t#S256)"}}
	}
	return nil
}

// invalid returns the validation error of fields, or nil when there are none.
func invalid(fields ...[]skygate.FieldError) error {
	all := slices.Concat(fields...)
	if len(all) == 0 {
		return nil
	}
	return skygate.ValidationError(all...)
}
