package httpapi

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"net/url"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// ClientCertConfig says how booking routes find the caller's client certificate.
type ClientCertConfig struct {
	// CAs verify certificates that arrive in ProxyHeader (the TLS listener verifies its
	// own with the same pool).
	CAs *x509.CertPool
	// ProxyHeader, when set, names a header carrying the URL-escaped PEM certificate
	// (as nginx's $ssl_client_escaped_cert), honoured only from Deps.Proxies.
	ProxyHeader string
}

// clientCertificate returns the verified client certificate of the request, or
// ClientCertificateRequired. A certificate from the TLS handshake was already verified
// against the client CA by the listener (tls.VerifyClientCertIfGiven). Either way it
// must be an end-entity certificate: a CA certificate (even one the client CA signed)
// identifies no client. A trusted proxy's header must come once: a second copy means
// the client sent one of its own and the proxy added its own, or the reverse.
func (s *Server) clientCertificate(r *http.Request) (*x509.Certificate, error) {
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 && len(r.TLS.VerifiedChains) > 0 {
		return endEntity(r.TLS.PeerCertificates[0])
	}
	cfg := s.deps.ClientCerts
	if peer, _ := parseAddr(r.RemoteAddr); cfg.ProxyHeader != "" && cfg.CAs != nil && containsAddr(s.deps.Proxies, peer) {
		values := r.Header.Values(cfg.ProxyHeader)
		if len(values) > 1 {
			return nil, skygate.Errorf(skygate.CodeClientCertificateRequired, "the forwarded client certificate header appears more than once")
		}
		if len(values) == 1 && values[0] != "" {
			cert, err := parseProxyCert(values[0])
			if err != nil {
				return nil, skygate.Errorf(skygate.CodeClientCertificateRequired, "the forwarded client certificate is not a PEM certificate")
			}
			_, err = cert.Verify(x509.VerifyOptions{Roots: cfg.CAs, CurrentTime: s.now(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
			if err != nil {
				return nil, skygate.Errorf(skygate.CodeClientCertificateRequired, "the forwarded client certificate does not chain to the client CA")
			}
			return endEntity(cert)
		}
	}
	return nil, skygate.Errorf(skygate.CodeClientCertificateRequired, "booking routes need a client certificate on the mutual-TLS listener")
}

// endEntity returns cert unless it is a CA certificate.
func endEntity(cert *x509.Certificate) (*x509.Certificate, error) {
	if cert.IsCA {
		return nil, skygate.Errorf(skygate.CodeClientCertificateRequired, "a CA certificate is not a client certificate")
	}
	return cert, nil
}

func parseProxyCert(v string) (*x509.Certificate, error) {
	unescaped, err := url.QueryUnescape(v)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode([]byte(unescaped))
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("not a PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

// CertThumbprint is the RFC 8705 x5t#S256 of a certificate: base64url(SHA-256(DER)).
func CertThumbprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// requireClientCert wraps an authenticated handler: the request must carry a verified
// client certificate. That it is the one the token's application is bound to, when it
// is bound, principal has checked for every route (checkCertificateBinding).
func (s *Server) requireClientCert(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := s.clientCertificate(r); err != nil {
			return err
		}
		return next(w, r)
	}
}

// tokenClientCert hands the token endpoint the client certificate of the request, for
// tls_client_auth (RFC 8705 §2): a certificate that the mutual-TLS listener verified
// against the client CA, or that a trusted proxy forwarded and that chains to it, as
// booking routes accept (clientCertificate). A request without one, or with one that
// is no client's (a CA certificate, a forwarded one that does not verify), reaches the
// endpoint without a certificate: it may still authenticate with a secret.
func (s *Server) tokenClientCert(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cert, err := s.clientCertificate(r); err == nil {
			r = r.WithContext(oauth.WithClientCertificate(r.Context(), CertThumbprint(cert)))
		}
		next.ServeHTTP(w, r)
	})
}

// livemode reports whether the objects and events that r creates are live (see
// skygate.Event): not when isSandbox.
func (s *Server) livemode(r *http.Request) (bool, error) {
	sandbox, err := s.isSandbox(r)
	return !sandbox, err
}

// isSandbox reports whether the caller may use sandbox routes: a sandbox deployment,
// or a sandbox application (read from the application cache).
func (s *Server) isSandbox(r *http.Request) (bool, error) {
	if s.deps.Sandbox {
		return true, nil
	}
	claims := principalOf(r.Context())
	if claims == nil || claims.ClientID == "" {
		return false, nil
	}
	app, _, err := s.deps.Applications.ApplicationByClientID(r.Context(), claims.ClientID)
	if skygate.IsCode(err, skygate.CodeNotFound) {
		return false, skygate.Errorf(skygate.CodeUnauthorized, "the token's application no longer exists")
	}
	if err != nil {
		return false, err
	}
	return app.Sandbox, nil
}
