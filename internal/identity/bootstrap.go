package identity

import (
	"context"
	"strings"

	"github.com/skygate/skygate"
)

// Rotation says what Bootstrap does with the secret of an application that exists.
type Rotation int

const (
	// KeepSecret leaves the secret as it is (unless Bootstrap.Secret differs from it).
	KeepSecret Rotation = iota
	// NewSecret gives the application a new secret.
	NewSecret
	// NewSecretRevokingTokens gives it a new secret and revokes every token it was
	// issued so far.
	NewSecretRevokingTokens
)

// Bootstrap makes sure an account of a name exists with an application: the command
// of `skygate bootstrap` and of the demo account.
type Bootstrap struct {
	// Account is the account's name; it is trimmed.
	Account string
	// Scopes, Sandbox and ClientCertSHA256 describe the application that Bootstrap
	// creates, as NewApplication's fields do; an existing one keeps its own.
	Scopes           []string
	Sandbox          bool
	ClientCertSHA256 string
	// Rotation applies to an existing application.
	Rotation Rotation
	// Secret, when set, is the application's secret instead of a random one: a new
	// application gets it, and an existing one whose secret differs is given it (with
	// Rotation's revocation).
	Secret string
}

// Validate checks c as Service.Bootstrap does, without a store, so that the command
// line can refuse its flags before it creates anything.
func (c Bootstrap) Validate() error {
	return invalid(checkName("account", strings.TrimSpace(c.Account)), checkScopes("scopes", c.Scopes),
		checkThumbprint("client_cert_sha256", c.ClientCertSHA256))
}

// Bootstrapped is Bootstrap's result.
type Bootstrapped struct {
	Account     *skygate.Account
	Application *skygate.Application
	// ClientSecret is the application's secret when the caller may see it: one this
	// call set, or the Secret it was given; else "", for a secret is shown once.
	ClientSecret string
}

// Bootstrap creates the account and its first application unless they exist,
// idempotent by the account's name: concurrent calls with one name make one account
// and one application between them. The input is checked as the admin API checks
// accounts and applications, with the fields named account, scopes and
// client_cert_sha256. Each write is audited with by as the actor.
func (s *Service) Bootstrap(ctx context.Context, by skygate.Actor, c Bootstrap) (*Bootstrapped, error) {
	c.Account = strings.TrimSpace(c.Account)
	spec := NewApplication{Name: defaultApplicationName(c.Account), AllowedScopes: c.Scopes, Sandbox: c.Sandbox, ClientCertSHA256: c.ClientCertSHA256}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	acc, err := s.createAccount(ctx, by, NewAccount{Name: c.Account})
	if skygate.IsCode(err, skygate.CodeConflict) {
		acc, err = s.store.AccountByName(ctx, c.Account)
	}
	if err != nil {
		return nil, err
	}

	spec.AccountID = acc.ID
	app, secret, audit, err := s.newApplication(by, spec, c.Secret)
	if err != nil {
		return nil, err
	}
	app, created, err := s.store.CreateFirstApplication(ctx, app, audit)
	if err != nil {
		return nil, err
	}
	out := &Bootstrapped{Account: acc, Application: app}
	switch {
	case created:
		out.ClientSecret = secret
	case c.Rotation != KeepSecret || (c.Secret != "" && !s.secrets.Verify(c.Secret, app.SecretHash)):
		// The command line replaces the secret at once: it runs when a secret must
		// change now (lost, leaked, or given in a deployment).
		rotation := SecretRotation{ApplicationID: app.ID, GraceSeconds: new(0), RevokeTokens: c.Rotation == NewSecretRevokingTokens}
		if out.Application, err = s.setSecret(ctx, by, app, secret, rotation); err != nil {
			return nil, err
		}
		out.ClientSecret = secret
	case c.Secret != "":
		out.ClientSecret = c.Secret
	}
	return out, nil
}

// defaultApplicationName names the application Bootstrap creates after its account,
// within MaxNameLen.
func defaultApplicationName(account string) string {
	const suffix = " default"
	name := []rune(account)
	if n := MaxNameLen - len(suffix); len(name) > n {
		name = name[:n]
	}
	return string(name) + suffix
}
