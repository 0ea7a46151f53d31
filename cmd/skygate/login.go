package main

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/config"
	"github.com/skygate/skygate/internal/devidp"
	"github.com/skygate/skygate/internal/login"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
)

// devIdPPath is where the built-in development identity provider lives, under
// SKYGATE_PUBLIC_URL.
const devIdPPath = "/dev/idp"

// employeeLogin is employee login as serve wires it: the login and callback routes,
// the authorization_code grant of the token endpoint, and, when no external provider
// is configured, the built-in development provider.
type employeeLogin struct {
	// handler serves GET /api/v1/auth/idp/login (Login) and …/callback (Callback).
	handler *login.Handler
	// grant goes to oauth.NewTokenHandler next to the client_credentials grant.
	grant *login.Grant
	// devIdP is nil unless SKYGATE_DEV_IDP; then its Handler is served at its Pattern
	// ("/dev/idp/").
	devIdP *devidp.Provider
}

// newEmployeeLogin builds employee login from the configuration. The grant signs with
// keys through an issuer of its own, with the employee lifetime (login.TokenTTL, 1 h)
// whatever SKYGATE_TOKEN_TTL says. Nothing contacts the provider yet: discovery
// happens on the first login, so serve starts while the provider is down, and the dev
// IdP, served by this same process, can be discovered at all.
func newEmployeeLogin(cfg *config.Config, box *seal.Box, codes skygate.LoginCodeStore, keys *oauth.KeyManager, log *slog.Logger) (*employeeLogin, error) {
	policy, err := login.NewPolicy(cfg.Env, cfg.RoleMap)
	if err != nil {
		return nil, err
	}
	issuer, err := oauth.NewIssuer(keys, oauth.IssuerConfig{Issuer: cfg.PublicURL, TTL: login.TokenTTL})
	if err != nil {
		return nil, fmt.Errorf("employee token issuer: %w", err)
	}
	lc := login.Config{
		Issuer: cfg.OIDCIssuer, ClientID: cfg.OIDCClientID, ClientSecret: cfg.OIDCSecret,
		CallbackURL:  cfg.PublicURL + oauth.AuthorizationCallbackPath,
		RedirectURIs: cfg.AdminRedirects,
		Policy:       policy,
		StateKey:     box.DeriveKey(seal.PurposeLoginState),
		Codes:        codes,
		Log:          log,
	}
	el := &employeeLogin{}
	if cfg.DevIdP() {
		// devidp.New refuses production itself, whatever config.Load let through.
		el.devIdP, err = devidp.New(devidp.Config{
			Env: cfg.Env, Issuer: cfg.PublicURL + devIdPPath, RedirectURI: lc.CallbackURL,
		})
		if err != nil {
			return nil, err
		}
		lc.Issuer, lc.ClientID, lc.ClientSecret = el.devIdP.Issuer(), el.devIdP.ClientID(), el.devIdP.ClientSecret()
		// The back channel reaches the dev IdP in-process: SKYGATE_PUBLIC_URL need not
		// be reachable from the server itself.
		lc.HTTPClient = el.devIdP.HTTPClient(nil)
		log.Info("employee login uses the built-in development identity provider (SKYGATE_DEV_IDP)",
			"issuer", el.devIdP.Issuer())
	}
	if el.handler, err = login.New(lc); err != nil {
		return nil, err
	}
	el.grant = login.NewGrant(login.GrantConfig{Codes: codes, Issuer: issuer})
	return el, nil
}

// register adds the routes to mux, adapting the handlers' errors with handle. serve
// registers them through httpapi instead; tests use this to run the flow before that.
func (el *employeeLogin) register(mux *http.ServeMux, handle func(func(http.ResponseWriter, *http.Request) error) http.Handler) {
	mux.Handle("GET "+oauth.AuthorizationPath, handle(el.handler.Login))
	mux.Handle("GET "+oauth.AuthorizationCallbackPath, handle(el.handler.Callback))
	if pattern, h := el.devIdPRoute(); h != nil {
		mux.Handle(pattern, h)
	}
}

// devIdPRoute returns the pattern and handler of the dev IdP, or "" and nil when an
// external provider is configured.
func (el *employeeLogin) devIdPRoute() (string, http.Handler) {
	if el.devIdP == nil {
		return "", nil
	}
	return el.devIdP.Pattern(), el.devIdP.Handler()
}
