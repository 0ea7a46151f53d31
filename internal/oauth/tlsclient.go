package oauth

import (
	"context"
	"crypto/subtle"
	"errors"

	"github.com/skygate/skygate"
)

// AuthMethodTLSClient is PKI mutual-TLS client authentication (RFC 8705 §2.1): the
// client sends its client_id and no secret over mutual TLS, and the certificate it
// presented authenticates it.
const AuthMethodTLSClient = "tls_client_auth"

type clientCertKey struct{}

// WithClientCertificate returns ctx carrying thumbprint, the x5t#S256 (base64url
// SHA-256 of the DER) of the verified client certificate the request came with. The
// HTTP layer sets it on token requests that arrive with a certificate that chains to
// the client CA (on the mutual-TLS listener, or from a trusted proxy); without it the
// token endpoint has no certificate to authenticate a client by.
func WithClientCertificate(ctx context.Context, thumbprint string) context.Context {
	return context.WithValue(ctx, clientCertKey{}, thumbprint)
}

// clientCertificate returns the thumbprint WithClientCertificate put in ctx, or "".
func clientCertificate(ctx context.Context) string {
	s, _ := ctx.Value(clientCertKey{}).(string)
	return s
}

// authenticateCertificate is tls_client_auth: c names a client_id, sends no secret and
// carries the thumbprint of a verified client certificate. The application must be
// bound to a certificate (ClientCertSHA256) and that binding must equal the
// thumbprint; an unknown client, an unbound application and another certificate are
// all invalid_client, like a wrong secret. A binding that does not match a cached
// application is read once more from the store, so that a certificate bound on another
// replica works at once.
func (a *ClientAuthenticator) authenticateCertificate(ctx context.Context, c ClientAuth) (*skygate.Application, *skygate.Account, error) {
	fail := Errorf(CodeInvalidClient, "client authentication failed")
	if !plausibleClientID(c.ID) {
		return nil, nil, fail
	}
	app, acct, cached, err := a.apps.lookup(ctx, c.ID, false)
	bound := err == nil && acct != nil && certBound(app, c.CertThumbprint)
	if err == nil && cached && !bound {
		app, acct, err = a.apps.reload(ctx, c.ID, false)
		bound = err == nil && acct != nil && certBound(app, c.CertThumbprint)
	}
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound):
		return nil, nil, fail
	case err != nil:
		return nil, nil, err
	case acct == nil:
		return nil, nil, errors.New("oauth: application without account")
	case !bound:
		return nil, nil, fail
	}
	if c.admit != nil {
		if err := c.admit(app.ClientID); err != nil {
			return nil, nil, err
		}
	}
	return app, acct, nil
}

// certBound reports whether app is bound to the certificate of thumbprint.
func certBound(app *skygate.Application, thumbprint string) bool {
	return app.ClientCertSHA256 != "" &&
		subtle.ConstantTimeCompare([]byte(app.ClientCertSHA256), []byte(thumbprint)) == 1
}
