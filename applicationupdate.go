package skygate

import (
	"context"
	"time"
)

// ApplicationUpdate is a change of an application's settings after its creation, as
// the admin API's merge-patch asks for it: a member whose Set flag is false is left as
// it is.
type ApplicationUpdate struct {
	// SetAudiences replaces the application's Audiences with Audiences; an empty list
	// removes them. The caller checks and deduplicates them; the store keeps them as
	// given.
	SetAudiences bool
	Audiences    []string
	// SetJWKS replaces the application's JWK Set (ClientKeyStore) with JWKS; nil
	// removes it.
	SetJWKS bool
	JWKS    []byte
}

// ApplicationUpdater changes an application's settings after its creation.
type ApplicationUpdater interface {
	// UpdateApplication applies u to the account's application, sets its UpdatedAt to
	// now and commits audit's record, all in one transaction: a reader sees the whole
	// change or none of it. An unknown application, or one of another account, is
	// CodeNotFound, and then nothing changes.
	UpdateApplication(ctx context.Context, accountID, applicationID string, u ApplicationUpdate, now time.Time, audit *AuditEvent) error
}
