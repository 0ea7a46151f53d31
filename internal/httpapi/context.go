package httpapi

import (
	"context"
	"time"

	"github.com/skygate/skygate/internal/oauth"
)

// requestState is what the middleware learns of a request: ServeHTTP puts one into the
// request's context before routing, authentication fills in the caller, and the access
// log and the problem writer read it after the handler has run. Handlers read it
// through the accessors below, never directly.
type requestState struct {
	// id is the request id, also sent as X-Request-ID.
	id string
	// start is when ServeHTTP began: the time tokens are verified at.
	start time.Time
	// claims are the verified token's, set by authenticate; nil before.
	claims *oauth.Claims
}

// stateKey is the context key of the *requestState.
type stateKey struct{}

// stateOf returns the state that ServeHTTP put into ctx, or nil outside ServeHTTP.
func stateOf(ctx context.Context) *requestState {
	st, _ := ctx.Value(stateKey{}).(*requestState)
	return st
}

// requestIDOf returns the id of the request whose context ctx is, or "" outside
// ServeHTTP.
func requestIDOf(ctx context.Context) string {
	if st := stateOf(ctx); st != nil {
		return st.id
	}
	return ""
}

// principalOf returns the verified claims of the request whose context ctx is, or nil
// before authentication.
func principalOf(ctx context.Context) *oauth.Claims {
	if st := stateOf(ctx); st != nil {
		return st.claims
	}
	return nil
}

// accountIDOf returns the tenant of the authenticated B2B request whose context ctx is,
// or "" for an employee or before authentication.
func accountIDOf(ctx context.Context) string {
	if c := principalOf(ctx); c != nil {
		return c.AccountID
	}
	return ""
}
