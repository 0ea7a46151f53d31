package oauth

import (
	"net/http"
	"net/url"
)

// TokenHooks is what the HTTP layer does at the moments of a token request that only
// the TokenHandler sees: rate limits and their answers, and the log of failed client
// authentications, are its business (internal/httpapi.Server.TokenHooks).
type TokenHooks interface {
	// Authenticated is called once r has proved the secret of the application whose
	// client_id is clientID, before its token is issued, at most once per request. A
	// non-nil error refuses r: the handler issues nothing and passes the error to
	// WriteRefusal.
	Authenticated(w http.ResponseWriter, r *http.Request, clientID string) error
	// WriteRefusal writes the answer to a request that Authenticated refused.
	WriteRefusal(w http.ResponseWriter, r *http.Request, err error)
	// AuthenticationFailed is called once for each request answered invalid_client,
	// before the answer is written, with the client_id the request sent as it sent it
	// ("" when there was none): unchecked, of any length and content. The secret is
	// never passed on.
	AuthenticationFailed(w http.ResponseWriter, r *http.Request, clientID string)
}

// refusal is an error of TokenHooks.Authenticated on its way back to ServeHTTP through
// the grant, which returns it as it is.
type refusal struct{ err error }

func (e *refusal) Error() string { return e.err.Error() }

// sentClientID is the client_id that a request sent: the parsed one, else the iss
// its client assertion claims, or, for a request that could not be parsed, the user
// of its HTTP Basic header as it came.
func sentClientID(r *http.Request, req *TokenRequest) string {
	if req != nil {
		if req.Client.ID == "" && req.Client.Assertion != "" {
			return claimedIssuer(req.Client.Assertion)
		}
		return req.Client.ID
	}
	if user, _, ok := r.BasicAuth(); ok {
		if id, err := url.QueryUnescape(user); err == nil {
			return id
		}
		return user
	}
	return ""
}
