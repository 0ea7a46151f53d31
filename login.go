package skygate

import (
	"context"
	"time"
)

// LoginCode is the one-time authorization code of an employee login (SPEC.md §5.2):
// the callback of the identity provider creates it, and the authorization_code grant
// of the token endpoint consumes it once to issue the employee's token.
//
// The code itself is never stored: Hash is its SHA-256, so a copy of the database
// does not reveal codes that are still live. The provider's own tokens are not part
// of it either; only what the employee token needs is kept.
type LoginCode struct {
	// Hash is the SHA-256 of the code, 32 bytes; the primary key.
	Hash []byte
	// Subject is the employee's identifier at the identity provider (the sub claim).
	Subject string
	Email   string
	Name    string
	// Roles and Scopes are what the employee's groups mapped to when the code was
	// made. Both may be empty: an employee with no role gets a code, and the token
	// endpoint answers it with access_denied.
	Roles  []string
	Scopes []string
	// CodeChallenge is the SPA's PKCE S256 challenge; RedirectURI the whitelisted URI
	// the code was sent to. The grant checks both.
	CodeChallenge string
	RedirectURI   string
	CreatedAt     time.Time
	ExpiresAt     time.Time
	// UsedAt is when the code was consumed; nil while it is unused.
	UsedAt *time.Time
}

// LoginCodeStore keeps the one-time codes of employee login in the database, so that
// the callback and the token request may reach different replicas.
type LoginCodeStore interface {
	// CreateLoginCode inserts c. Times are normalised to the stored precision; nil
	// Roles and Scopes are stored (and read back) as empty lists. A Hash already
	// stored is CodeConflict.
	CreateLoginCode(ctx context.Context, c *LoginCode) error
	// ConsumeLoginCode marks the code with that hash as used at now and returns it,
	// in one atomic step: of concurrent calls for one code exactly one succeeds. A
	// code that is unknown, already used, or whose ExpiresAt is not after now is
	// CodeNotFound; the three cases are deliberately not told apart.
	ConsumeLoginCode(ctx context.Context, hash []byte, now time.Time) (*LoginCode, error)
	// DeleteExpiredLoginCodes removes every code, used or not, whose ExpiresAt is
	// before t, and returns how many it removed.
	DeleteExpiredLoginCodes(ctx context.Context, t time.Time) (int64, error)
}
