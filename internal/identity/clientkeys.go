package identity

import (
	"bytes"
	"context"
	"encoding/json/jsontext"
	"encoding/json/v2"

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
// is the admin API's request body and the audit record's details.
type ApplicationPatch struct {
	ApplicationID string `json:"-"`
	// JWKS replaces the application's JWK Set (private_key_jwt); null removes it.
	JWKS jsontext.Value `json:"jwks,omitzero"`
	// Audiences replace the application's audiences (checked as at creation, repeats
	// dropped); null or [] removes them.
	Audiences jsontext.Value `json:"audiences,omitzero"`
}

// update checks c, naming the fields by their JSON names, and returns the store's form
// of it.
func (c ApplicationPatch) update() (skygate.ApplicationUpdate, error) {
	u := skygate.ApplicationUpdate{SetJWKS: len(c.JWKS) > 0, SetAudiences: len(c.Audiences) > 0}
	jwks, jwksErr := checkJWKS("jwks", c.JWKS, true)
	u.JWKS = jwks
	var audErr []skygate.FieldError
	if u.SetAudiences {
		u.Audiences, audErr = decodeAudiences("audiences", c.Audiences)
	}
	return u, invalid(jwksErr, audErr)
}

// decodeAudiences decodes a patch's audiences (null is none) and checks them as
// checkAudiences does.
func decodeAudiences(field string, v jsontext.Value) ([]string, []skygate.FieldError) {
	var audiences []string
	if err := json.Unmarshal(v, &audiences); err != nil {
		return nil, []skygate.FieldError{{Field: field, Message: "must be an array of strings or null"}}
	}
	if fields := checkAudiences(field, audiences); fields != nil {
		return nil, fields
	}
	return uniq(audiences), nil
}

// WithJWKS is an application with its JWK Set as stored, absent without one: the
// answer of PatchApplication.
type WithJWKS struct {
	*skygate.Application
	JWKS jsontext.Value `json:"jwks,omitempty"`
}

// PatchApplication applies c to any account's application and returns it as it is
// then. A patch that changes nothing writes nothing, not even an audit record; one
// that does is one write with one application.update record. Invalid input is
// CodeValidation, an unknown application CodeNotFound.
func (s *Service) PatchApplication(ctx context.Context, by skygate.Actor, c ApplicationPatch) (*WithJWKS, error) {
	u, err := c.update()
	if err != nil {
		return nil, err
	}
	app, err := s.store.ApplicationAdmin(ctx, c.ApplicationID)
	if err != nil {
		return nil, err
	}
	if u.SetJWKS || u.SetAudiences {
		now := s.now()
		audit, err := by.Audit(now, "application.update", applicationType, app.ID, app.AccountID, c)
		if err != nil {
			return nil, err
		}
		if err := s.store.UpdateApplication(ctx, app.AccountID, app.ID, u, now, audit); err != nil {
			return nil, err
		}
		if app, err = s.store.Application(ctx, app.AccountID, app.ID); err != nil {
			return nil, err
		}
	}
	jwks, err := s.store.ApplicationJWKS(ctx, app.AccountID, app.ID)
	if err != nil {
		return nil, err
	}
	return &WithJWKS{Application: app, JWKS: jwks}, nil
}
