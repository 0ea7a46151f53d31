package identity

import (
	"context"
	"encoding/json/jsontext"
	"fmt"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// NewApplication creates an application of an account. Its JSON form is the admin
// API's request body and the audit record's details.
type NewApplication struct {
	AccountID string `json:"-"`
	// Name is the application's display name; it is trimmed.
	Name string `json:"name"`
	// AllowedScopes are B2B scopes, at least one; repeats are dropped.
	AllowedScopes []string `json:"allowed_scopes"`
	Sandbox       bool     `json:"sandbox"`
	// ClientCertSHA256 optionally binds the application to one client certificate
	// (x5t#S256).
	ClientCertSHA256 string `json:"client_cert_sha256"`
	// Audiences are resource servers the application's tokens are also meant for:
	// at most MaxAudiences absolute URIs (checkAudience); repeats are dropped.
	Audiences []string `json:"audiences,omitempty"`
	// JWKS optionally registers the public keys of private_key_jwt client
	// authentication (see oauth.ParseClientJWKS); the application keeps its secret too.
	JWKS jsontext.Value `json:"jwks,omitempty"`
}

// validate checks c, naming the fields by their JSON names, and returns the stored
// form of its JWK Set (nil without one).
func (c NewApplication) validate() ([]byte, error) {
	jwks, jwksErr := checkJWKS("jwks", c.JWKS, false)
	return jwks, invalid(checkName("name", c.Name), checkScopes("allowed_scopes", c.AllowedScopes),
		checkThumbprint("client_cert_sha256", c.ClientCertSHA256), checkAudiences("audiences", c.Audiences), jwksErr)
}

// WithSecret is an application with its client secret in clear: the answer of a
// creation or a rotation, the only time the secret is known.
type WithSecret struct {
	*skygate.Application
	ClientSecret string `json:"client_secret"`
	// JWKS is the JWK Set registered at creation, as stored; absent without one.
	JWKS jsontext.Value `json:"jwks,omitempty"`
}

// CreateApplication creates an application with a new secret. Invalid input is
// CodeValidation, an unknown account CodeNotFound.
func (s *Service) CreateApplication(ctx context.Context, by skygate.Actor, c NewApplication) (*WithSecret, error) {
	jwks, err := c.validate()
	if err != nil {
		return nil, err
	}
	app, secret, audit, err := s.newApplication(by, c, "")
	if err != nil {
		return nil, err
	}
	if jwks == nil {
		err = s.store.CreateApplication(ctx, app, audit)
	} else {
		err = s.store.CreateApplicationWithJWKS(ctx, app, jwks, audit)
	}
	if err != nil {
		return nil, err
	}
	return &WithSecret{Application: app, ClientSecret: secret, JWKS: jwks}, nil
}

// newApplication returns the application of a valid command, with secret (a new one
// when secret is empty) and the record of its creation.
func (s *Service) newApplication(by skygate.Actor, c NewApplication, secret string) (*skygate.Application, string, *skygate.AuditEvent, error) {
	if secret == "" {
		var err error
		if secret, err = oauth.NewClientSecret(); err != nil {
			return nil, "", nil, err
		}
	}
	now := s.now().UTC()
	c.Name = strings.TrimSpace(c.Name)
	c.AllowedScopes = skygate.ParseScopes(strings.Join(c.AllowedScopes, " "))
	app := &skygate.Application{
		ID: skygate.NewID(), AccountID: c.AccountID, Name: c.Name,
		ClientID: skygate.NewClientID(), SecretHash: s.secrets.Hash(secret),
		AllowedScopes: c.AllowedScopes, Sandbox: c.Sandbox,
		ClientCertSHA256: c.ClientCertSHA256, Audiences: uniq(c.Audiences), CreatedAt: now, UpdatedAt: now,
	}
	audit, err := by.Audit(now, "application.create", applicationType, app.ID, app.AccountID, c)
	if err != nil {
		return nil, "", nil, err
	}
	return app, secret, audit, nil
}

// Application returns any account's application by id (employees address them by id
// alone), or CodeNotFound.
func (s *Service) Application(ctx context.Context, applicationID string) (*skygate.Application, error) {
	return s.store.ApplicationAdmin(ctx, applicationID)
}

// Applications returns a page of the account's applications and the total; an unknown
// account is CodeNotFound.
func (s *Service) Applications(ctx context.Context, accountID string, p skygate.Page) ([]*skygate.Application, int, error) {
	if _, err := s.store.Account(ctx, accountID); err != nil {
		return nil, 0, err
	}
	return s.store.ListApplications(ctx, accountID, p)
}

// DeleteApplication deletes any account's application and returns it as it was; its
// client gets no more tokens. An unknown application is CodeNotFound.
func (s *Service) DeleteApplication(ctx context.Context, by skygate.Actor, applicationID string) (*skygate.Application, error) {
	app, err := s.store.ApplicationAdmin(ctx, applicationID)
	if err != nil {
		return nil, err
	}
	audit, err := by.Audit(s.now(), "application.delete", applicationType, app.ID, app.AccountID, nil)
	if err != nil {
		return nil, err
	}
	if err := s.store.DeleteApplication(ctx, app.AccountID, app.ID, audit); err != nil {
		return nil, err
	}
	return app, nil
}

// SecretRotation gives an application a new secret. Its JSON form is the admin API's
// request body.
type SecretRotation struct {
	ApplicationID string `json:"-"`
	// GraceSeconds is how long the replaced secret keeps authenticating the client:
	// 0 to MaxGraceSeconds; nil is DefaultGraceSeconds, or 0 with RevokeTokens.
	GraceSeconds *int `json:"grace_seconds,omitempty"`
	// RevokeTokens also revokes every token the application was issued so far
	// (skygate.ApplicationStore.SetApplicationSecretRevokingTokens). Without it they
	// live until they expire. It is for a leaked secret, so the replaced secret stops
	// at once: a grace period above 0 with it is invalid.
	RevokeTokens bool `json:"revoke_tokens"`
}

// Grace periods of a secret rotation, in seconds.
const (
	DefaultGraceSeconds = 86400
	MaxGraceSeconds     = 30 * 86400
)

// grace validates c and returns its grace period.
func (c SecretRotation) grace() (time.Duration, error) {
	if c.GraceSeconds == nil {
		if c.RevokeTokens {
			return 0, nil
		}
		return DefaultGraceSeconds * time.Second, nil
	}
	g := *c.GraceSeconds
	switch {
	case g < 0 || g > MaxGraceSeconds:
		return 0, skygate.ValidationError(skygate.FieldError{Field: "grace_seconds",
			Message: fmt.Sprintf("must be between 0 and %d", MaxGraceSeconds)})
	case g > 0 && c.RevokeTokens:
		return 0, skygate.ValidationError(skygate.FieldError{Field: "grace_seconds",
			Message: "must be 0 with revoke_tokens: revoking tokens stops the replaced secret at once"})
	}
	return time.Duration(g) * time.Second, nil
}

// rotationAudit is the audit record's details of a rotation: what was asked and when
// the replaced secret stops authenticating (absent when at once).
type rotationAudit struct {
	RevokeTokens            bool      `json:"revoke_tokens"`
	GraceSeconds            int       `json:"grace_seconds"`
	PreviousSecretExpiresAt time.Time `json:"previous_secret_expires_at,omitzero"`
}

// RotateSecret replaces any account's application's secret with a new one. The
// replaced secret keeps authenticating for the grace period (and no longer), and an
// earlier previous secret is dropped. Invalid input is CodeValidation, an unknown
// application CodeNotFound.
func (s *Service) RotateSecret(ctx context.Context, by skygate.Actor, c SecretRotation) (*WithSecret, error) {
	if _, err := c.grace(); err != nil {
		return nil, err
	}
	app, err := s.store.ApplicationAdmin(ctx, c.ApplicationID)
	if err != nil {
		return nil, err
	}
	secret, err := oauth.NewClientSecret()
	if err != nil {
		return nil, err
	}
	if app, err = s.setSecret(ctx, by, app, secret, c); err != nil {
		return nil, err
	}
	return &WithSecret{Application: app, ClientSecret: secret}, nil
}

// setSecret gives app secret as c says, audited, and returns the application as
// written. c must be valid.
func (s *Service) setSecret(ctx context.Context, by skygate.Actor, app *skygate.Application, secret string, c SecretRotation) (*skygate.Application, error) {
	grace, err := c.grace()
	if err != nil {
		return nil, err
	}
	now, hash := s.now(), s.secrets.Hash(secret)
	details := rotationAudit{RevokeTokens: c.RevokeTokens, GraceSeconds: int(grace / time.Second)}
	if grace > 0 {
		details.PreviousSecretExpiresAt = now.Add(grace).UTC().Truncate(time.Microsecond)
	}
	audit, err := by.Audit(now, "application.rotate_secret", applicationType, app.ID, app.AccountID, details)
	if err != nil {
		return nil, err
	}
	if c.RevokeTokens {
		return s.store.SetApplicationSecretRevokingTokens(ctx, app.AccountID, app.ID, hash, now, audit)
	}
	return s.store.SetApplicationSecret(ctx, app.AccountID, app.ID, hash, details.PreviousSecretExpiresAt, now, audit)
}
