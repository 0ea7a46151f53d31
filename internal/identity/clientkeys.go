package identity

import (
	"bytes"
	"context"
	"encoding/json/jsontext"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// checkJWKS checks an application's JWK Set as sent (see oauth.ParseClientJWKS) and
// returns its stored form: nil when v is absent, or null and nullable.
func checkJWKS(field string, v jsontext.Value, nullable bool) ([]byte, []skygate.FieldError) {
	if len(v) == 0 {
		return nil, nil
	}
	if bytes.Equal(v, []byte("null")) {
		if nullable {
			return nil, nil
		}
		return nil, []skygate.FieldError{{Field: field, Message: `must be an object {"keys": [...]}`}}
	}
	jwks, err := oauth.ParseClientJWKS(v)
	if err != nil {
		return nil, []skygate.FieldError{{Field: field, Message: err.Error()}}
	}
	return jwks, nil
}

// ApplicationPatch changes an application with JSON merge-patch semantics (RFC 7396):
// a member left out changes nothing, null removes what can be removed. Its JSON form
// is the admin API's request body and the audit record's details. Members other than
// jwks may join it.
type ApplicationPatch struct {
	ApplicationID string `json:"-"`
	// JWKS replaces the application's JWK Set (private_key_jwt); null removes it.
	JWKS jsontext.Value `json:"jwks,omitzero"`
}

// WithJWKS is an application with its JWK Set as stored, absent without one: the
// answer of PatchApplication.
type WithJWKS struct {
	*skygate.Application
	JWKS jsontext.Value `json:"jwks,omitempty"`
}

// PatchApplication applies c to any account's application and returns it as it is
// then. A patch that changes nothing writes nothing, not even an audit record.
// Invalid input is CodeValidation, an unknown application CodeNotFound.
func (s *Service) PatchApplication(ctx context.Context, by skygate.Actor, c ApplicationPatch) (*WithJWKS, error) {
	jwks, fields := checkJWKS("jwks", c.JWKS, true)
	if err := invalid(fields); err != nil {
		return nil, err
	}
	app, err := s.store.ApplicationAdmin(ctx, c.ApplicationID)
	if err != nil {
		return nil, err
	}
	if len(c.JWKS) > 0 {
		now := s.now()
		audit, err := by.Audit(now, "application.update", applicationType, app.ID, app.AccountID, c)
		if err != nil {
			return nil, err
		}
		if err := s.store.SetApplicationJWKS(ctx, app.AccountID, app.ID, jwks, now, audit); err != nil {
			return nil, err
		}
		if app, err = s.store.Application(ctx, app.AccountID, app.ID); err != nil {
			return nil, err
		}
		return &WithJWKS{Application: app, JWKS: jwks}, nil
	}
	if jwks, err = s.store.ApplicationJWKS(ctx, app.AccountID, app.ID); err != nil {
		return nil, err
	}
	return &WithJWKS{Application: app, JWKS: jwks}, nil
}
