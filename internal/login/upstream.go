package login

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// upstream is the discovered identity provider.
type upstream struct {
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
	oauth    *oauth2.Config
	// pkce is whether the provider advertises S256 (RFC 8414: no
	// code_challenge_methods_supported means no PKCE).
	pkce bool
}

// upstream returns the provider, discovering it on first use. A failed discovery is
// not cached: the next login tries again.
func (h *Handler) upstream(ctx context.Context) (*upstream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.up != nil {
		return h.up, nil
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, h.cfg.HTTPClient), 15*time.Second)
	defer cancel()
	// The provider keeps the client for later JWKS fetches, not the context.
	p, err := oidc.NewProvider(ctx, h.cfg.Issuer)
	if err != nil {
		return nil, err
	}
	var meta struct {
		Scopes []string `json:"scopes_supported"`
		PKCE   []string `json:"code_challenge_methods_supported"`
	}
	if err := p.Claims(&meta); err != nil {
		return nil, fmt.Errorf("login: discovery document: %w", err)
	}
	scopes := []string{oidc.ScopeOpenID, "profile", "email"}
	// Many providers refuse unknown scopes; ask for groups only where it exists.
	if slices.Contains(meta.Scopes, "groups") {
		scopes = append(scopes, "groups")
	}
	h.up = &upstream{
		provider: p,
		verifier: p.Verifier(&oidc.Config{ClientID: h.cfg.ClientID, Now: h.cfg.Clock}),
		oauth: &oauth2.Config{
			ClientID: h.cfg.ClientID, ClientSecret: h.cfg.ClientSecret,
			Endpoint: p.Endpoint(), RedirectURL: h.cfg.CallbackURL, Scopes: scopes,
		},
		pkce: slices.Contains(meta.PKCE, "S256"),
	}
	return h.up, nil
}

// employee is what the provider says about the employee who signed in.
type employee struct {
	Subject string
	Email   string
	Name    string
	Groups  []string
}

// Upstream failures: errRefused means the provider's answer was a refusal or could
// not be trusted (the SPA gets access_denied), any other error that the provider
// could not be used (temporarily_unavailable).
var errRefused = errors.New("login: the identity provider's answer was refused")

// exchange trades the provider's code for its tokens, verifies the ID token (issuer,
// audience, expiry, signature, nonce, at_hash) and reads userinfo with the access
// token, whose sub must be the ID token's (OpenID Connect Core §5.3.2). The tokens
// go no further than this function.
func (h *Handler) exchange(ctx context.Context, up *upstream, code string, st *loginState) (*employee, error) {
	ctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, h.cfg.HTTPClient), 20*time.Second)
	defer cancel()
	var opts []oauth2.AuthCodeOption
	if up.pkce {
		opts = append(opts, oauth2.VerifierOption(h.keys.upstreamVerifier(st.Nonce)))
	}
	tok, err := up.oauth.Exchange(ctx, code, opts...)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
			return nil, fmt.Errorf("%w: code exchange: %w", errRefused, err)
		}
		return nil, fmt.Errorf("login: code exchange: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, fmt.Errorf("%w: the token response has no id_token", errRefused)
	}
	idt, err := up.verifier.Verify(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: ID token: %w", errRefused, err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(st.Nonce)) != 1 {
		return nil, fmt.Errorf("%w: the ID token's nonce is not the login's", errRefused)
	}
	if idt.AccessTokenHash != "" {
		if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
			return nil, fmt.Errorf("%w: at_hash: %w", errRefused, err)
		}
	}
	info, err := up.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return nil, fmt.Errorf("login: userinfo: %w", err)
	}
	if info.Subject != idt.Subject {
		return nil, fmt.Errorf("%w: userinfo sub %q is not the ID token's %q", errRefused, info.Subject, idt.Subject)
	}
	var fromInfo, fromID profileClaims
	if err := info.Claims(&fromInfo); err != nil {
		return nil, fmt.Errorf("%w: userinfo claims: %w", errRefused, err)
	}
	if err := idt.Claims(&fromID); err != nil {
		return nil, fmt.Errorf("%w: ID token claims: %w", errRefused, err)
	}
	e := &employee{
		Subject: idt.Subject,
		Email:   cmp.Or(fromInfo.Email, fromID.Email),
		Name:    cmp.Or(fromInfo.Name, fromInfo.PreferredUsername, fromID.Name, fromID.PreferredUsername, fromInfo.Email, fromID.Email),
		Groups:  fromInfo.Groups,
	}
	// userinfo is the source of groups (SPEC.md §5.2); the ID token only stands in for
	// a provider that leaves them out of userinfo altogether.
	if fromInfo.Groups == nil {
		e.Groups = fromID.Groups
	}
	return e, nil
}

// profileClaims are the claims read from userinfo and the ID token.
type profileClaims struct {
	Email             string `json:"email"`
	Name              string `json:"name"`
	PreferredUsername string `json:"preferred_username"`
	Groups            groups `json:"groups"`
}

// groups is a groups claim: an array of strings, or one string from providers that
// flatten a single group. Non-string members are ignored.
type groups []string

func (g *groups) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*g = nil
		return nil
	}
	var one string
	if json.Unmarshal(b, &one) == nil {
		*g = groups{one}
		return nil
	}
	var many []any
	if err := json.Unmarshal(b, &many); err != nil {
		return nil // an object or a number: no groups rather than no login
	}
	out := groups{}
	for _, v := range many {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	*g = out
	return nil
}
