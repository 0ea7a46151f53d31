package httpapi

import (
	"context"
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// The checks of a verified token beyond its signature and claims: its application
// still exists, in the token's account, and has not revoked it; and a token bound to a
// client certificate, or of an application bound to one, comes with that certificate.
// principal runs them on every authenticated route.

// checkApplication returns the application of a B2B token, refusing the token when
// the application is gone (deleted), belongs to another account than the token's
// account_id, or revoked the token (its gen below the application's TokenGeneration).
// It reads the application cache, which the admin API tells of this replica's changes
// at once and which learns of other replicas' within its ttl (ApplicationCacheTTL); a
// deleted application is remembered there for as long, so its tokens do not cost a
// store read each.
//
// So a replica that still caches the generation before a revocation accepts the
// revoked tokens until its entry expires: that ttl is the bound. A token that such a
// replica's token endpoint issued meanwhile with the replaced secret carries the
// generation it cached, the revoked one, and is refused wherever the new generation is
// known; no clock of any replica enters into it.
func (s *Server) checkApplication(ctx context.Context, claims *oauth.Claims) (*skygate.Application, error) {
	app, _, err := s.deps.Applications.TokenApplication(ctx, claims.ClientID)
	if err != nil {
		if skygate.IsCode(err, skygate.CodeNotFound) {
			return nil, invalidToken("the token's application no longer exists")
		}
		return nil, err
	}
	switch {
	case app.AccountID != claims.AccountID:
		return nil, invalidToken("the token's application belongs to another account")
	case claims.Generation < app.TokenGeneration:
		return nil, invalidToken("the token was revoked")
	}
	return app, nil
}

// checkCertificateBinding refuses a request whose token is bound to a client
// certificate (cnf x5t#S256, RFC 8705 §3: tokenBound) or whose application is bound
// to one now (appBound: a token issued before the binding, or before the application
// was bound to another certificate, has another cnf or none) unless it carries that
// verified client certificate: from the mutual-TLS handshake or, from a trusted proxy,
// in its header (clientCertificate). Empty thumbprints bind nothing. The answer is 401
// ClientCertificateRequired with an invalid_token challenge: the token alone proves
// nothing.
func (s *Server) checkCertificateBinding(r *http.Request, tokenBound, appBound string) error {
	if tokenBound == "" && appBound == "" {
		return nil
	}
	cert, err := s.clientCertificate(r)
	if err != nil {
		if tokenBound == "" {
			return certificateBound("the token's application is bound to a client certificate: present it over mutual TLS")
		}
		return certificateBound("the token is bound to a client certificate: present it over mutual TLS")
	}
	presented := CertThumbprint(cert)
	if tokenBound != "" && presented != tokenBound {
		return certificateBound("the token is bound to another client certificate than the one presented")
	}
	if appBound != "" && presented != appBound {
		return certificateBound("the token's application is bound to another client certificate than the one presented")
	}
	return nil
}

func certificateBound(desc string) error {
	return bearerError(skygate.CodeClientCertificateRequired, desc, `error="invalid_token", error_description="`+desc+`"`)
}
