package httpapi

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// TokenVerifier verifies a bearer token offline, at the time the request arrived.
// oauth.Verifier implements it; errors wrapping oauth.ErrWrongAudience are answered
// 403, every other error 401.
type TokenVerifier interface {
	VerifyAt(ctx context.Context, token string, at time.Time) (*oauth.Claims, error)
}

// authError is a 401/403 that also sets WWW-Authenticate (RFC 6750 §3).
type authError struct {
	err       *skygate.Error
	challenge string
}

func (e *authError) Error() string { return e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

// bearerError is an authError of code with message, whose challenge has params.
func bearerError(code, message, params string) error {
	return &authError{err: skygate.Errorf(code, "%s", message), challenge: `Bearer realm="skygate", ` + params}
}

func invalidToken(desc string) error {
	return bearerError(skygate.CodeUnauthorized, desc, `error="invalid_token", error_description="`+desc+`"`)
}

func insufficientScope(scope string) error {
	return bearerError(skygate.CodeInsufficientScope, "the token lacks the scope "+scope,
		`error="insufficient_scope", scope="`+scope+`"`)
}

// authenticate wraps next so that it runs only for a valid bearer token that holds
// scope and, for B2B tokens, belongs to an active account. It puts the claims into the
// request's state, where principalOf finds them.
func (s *Server) authenticate(scope string, next handlerFunc) handlerFunc {
	return s.authenticateAny([]string{scope}, next)
}

// authenticateAny is authenticate for routes that any one of several scopes opens.
func (s *Server) authenticateAny(scopes []string, next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		claims, err := s.principal(w, r)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(scopes, claims.HasScope) {
			return insufficientScope(strings.Join(scopes, " "))
		}
		if err := s.limit(w, r, limitAccount, claims.Principal(), s.deps.Limits.Account); err != nil {
			return err
		}
		st := stateOf(r.Context())
		if st == nil {
			// Every route is reached through ServeHTTP, which puts the state in.
			return errors.New("httpapi: authenticated route outside Server.ServeHTTP")
		}
		st.claims = claims
		return next(w, r)
	}
}

// principal verifies the Authorization header, at the time the request arrived, the
// account status, the token's application (checkApplication) and its certificate
// binding (checkCertificateBinding).
func (s *Server) principal(w http.ResponseWriter, r *http.Request) (*oauth.Claims, error) {
	if len(r.Header.Values("Authorization")) > 1 {
		// Not a list header (RFC 9110 §11.6.2): which one would count is anyone's guess.
		return nil, invalidToken("more than one Authorization header")
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, invalidToken("a bearer token is required")
	}
	// The scheme is case-insensitive (RFC 9110 §11.1).
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, invalidToken("the Authorization header must be Bearer <token>")
	}
	claims, err := s.deps.Tokens.VerifyAt(r.Context(), strings.TrimSpace(token), s.arrival(r.Context()))
	if err != nil {
		if errors.Is(err, oauth.ErrWrongAudience) {
			return nil, bearerError(skygate.CodeForbidden, "the token was issued for another audience",
				`error="invalid_token", error_description="wrong audience"`)
		}
		return nil, invalidToken("the token is invalid or expired")
	}
	appBound := ""
	if claims.AccountID != "" {
		active, err := s.accounts.Active(r.Context(), claims.AccountID)
		if err != nil {
			return nil, err
		}
		if !active {
			return nil, invalidToken("the account is suspended")
		}
		app, err := s.checkApplication(r.Context(), claims)
		if err != nil {
			return nil, err
		}
		appBound = app.ClientCertSHA256
	}
	if err := s.checkCertificateBinding(r, claims.CertThumbprint, appBound); err != nil {
		return nil, err
	}
	return claims, nil
}
