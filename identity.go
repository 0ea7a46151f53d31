package skygate

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Scopes named by the contract. Admin scopes end in ":*".
const (
	ScopeESIMWrite            = "esim:write"
	ScopeESIMRead             = "esim:read"
	ScopeCatalogESIMRead      = "catalog.esim:read"
	ScopeCatalogFastTrackRead = "catalog.fasttrack:read"
	ScopeCatalogLoungesRead   = "catalog.lounges:read"
	ScopeBookingWrite         = "booking.fasttrack:write"
	ScopeBookingRead          = "booking.fasttrack:read"
	ScopeWebhooksWrite        = "webhooks:write"
	ScopeWebhooksRead         = "webhooks:read"
	// ScopeEventsRead reads the account's events (the events API): the same events
	// its webhook deliveries carry.
	ScopeEventsRead = "events:read"
	// ScopeOAuthIntrospect lets an application's client call the introspection
	// endpoint (RFC 7662) about its own account's tokens.
	ScopeOAuthIntrospect   = "oauth.introspect"
	ScopeAdminAccounts     = "identity.account:*"
	ScopeAdminApplications = "identity.application:*"
	// ScopeAuditRead reads the admin audit log and nothing else: the auditor role's.
	ScopeAuditRead = "identity.audit:read"
)

// B2BScopes are the scopes an application may be allowed; admin scopes are for employees.
var B2BScopes = []string{
	ScopeCatalogLoungesRead, ScopeCatalogFastTrackRead, ScopeCatalogESIMRead,
	ScopeBookingWrite, ScopeBookingRead, ScopeESIMWrite, ScopeESIMRead,
	ScopeWebhooksWrite, ScopeWebhooksRead, ScopeEventsRead, ScopeOAuthIntrospect,
}

// AllScopes is every scope the service knows, B2B and admin.
var AllScopes = append(slices.Clone(B2BScopes), ScopeAdminAccounts, ScopeAdminApplications, ScopeAuditRead)

// ParseScopes splits a space-separated scope string (RFC 6749 §3.3), dropping empty
// parts and duplicates while keeping the first order.
func ParseScopes(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// AccountStatus is active or suspended. A suspended account's tokens stop working at once.
type AccountStatus string

const (
	AccountActive    AccountStatus = "active"
	AccountSuspended AccountStatus = "suspended"
)

// Account is a tenant. Every business object belongs to exactly one account.
type Account struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Status    AccountStatus `json:"status"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
}

// Application is a B2B client of an account. Its secret is never stored: SecretHash is
// a keyed fast hash (HMAC-SHA256) of a ≥32-byte random secret.
type Application struct {
	ID            string   `json:"id"`
	AccountID     string   `json:"account_id"`
	Name          string   `json:"name"`
	ClientID      string   `json:"client_id"`
	SecretHash    []byte   `json:"-"`
	AllowedScopes []string `json:"allowed_scopes"`
	Sandbox       bool     `json:"sandbox"`
	// ClientCertSHA256 optionally binds the application to one client certificate
	// (RFC 8705 x5t#S256, base64url without padding). Empty means any certificate that
	// chains to the client CA.
	ClientCertSHA256 string    `json:"client_cert_sha256,omitempty"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
	// TokenGeneration counts the revocations of the application's tokens (rotations
	// that revoke them). Each token carries the generation of its application when it
	// was issued, and one below the current generation is refused on every route.
	TokenGeneration int `json:"token_generation"`
	// TokensRevokedAt is when the last revocation happened, for employees; zero until
	// the first. Nothing compares tokens with it.
	TokensRevokedAt time.Time `json:"tokens_revoked_at,omitzero"`
	// PreviousSecretHash is the hash of the secret a rotation with a grace period
	// replaced; it authenticates the client until PreviousSecretExpiresAt (see
	// PreviousSecretValid). Nil when the last rotation had no grace period.
	PreviousSecretHash []byte `json:"-"`
	// PreviousSecretExpiresAt is when the previous secret stops (or stopped)
	// authenticating; zero when there is no previous secret.
	PreviousSecretExpiresAt time.Time `json:"previous_secret_expires_at,omitzero"`
	// Audiences are the resource servers (absolute URIs) that the application's access
	// tokens are also meant for (RFC 9068 §3): aud lists the service's own audience,
	// then these. Empty for most applications.
	Audiences []string `json:"audiences"`
}

// PreviousSecretValid reports whether the previous secret still authenticates at now:
// there is one and now is before its expiry.
func (a *Application) PreviousSecretValid(now time.Time) bool {
	return len(a.PreviousSecretHash) > 0 && now.Before(a.PreviousSecretExpiresAt)
}

// SigningKey is one ES256 key of the token issuer. The private key is stored encrypted
// with the master key so that replicas on one database share it and a database dump
// does not reveal it.
type SigningKey struct {
	ID string // the JWS kid
	// PrivateKeyEnc is the PKCS#8 private key sealed with the master key.
	PrivateKeyEnc []byte
	// PublicKeyDER is the PKIX public key, kept in clear for the JWKS.
	PublicKeyDER []byte
	CreatedAt    time.Time
	// ActiveAt is when the key starts signing. Until then it is only published, so that
	// verifiers that cache the JWKS learn it before the first token signed with it.
	ActiveAt time.Time
}

// AccountStore keeps accounts. Writes take the audit record to commit with them
// (required, see AuditStore); a write that fails commits neither.
type AccountStore interface {
	// CreateAccount inserts a. ID, CreatedAt and UpdatedAt are set by the caller. A name
	// already taken is CodeConflict.
	CreateAccount(ctx context.Context, a *Account, audit *AuditEvent) error
	// Account returns the account or CodeNotFound.
	Account(ctx context.Context, accountID string) (*Account, error)
	// AccountByName returns the account with that exact name or CodeNotFound.
	AccountByName(ctx context.Context, name string) (*Account, error)
	// ListAccounts returns a page of accounts ordered by creation, and the total count.
	ListAccounts(ctx context.Context, p Page) ([]*Account, int, error)
	// SetAccountStatus changes the status and UpdatedAt (to now) and returns the result,
	// or CodeNotFound.
	SetAccountStatus(ctx context.Context, accountID string, s AccountStatus, now time.Time, audit *AuditEvent) (*Account, error)
	// AccountsUpdatedSince returns accounts whose UpdatedAt is at or after t. The token
	// middleware polls it to learn suspensions made by other replicas.
	AccountsUpdatedSince(ctx context.Context, t time.Time) ([]*Account, error)
}

// ApplicationStore keeps applications. Every method but ApplicationByClientID and
// ApplicationAdmin takes the account id; an application of another account is
// CodeNotFound. Writes take the audit record to commit with them (required, see
// AuditStore); a write that fails commits neither.
type ApplicationStore interface {
	// CreateApplication inserts app. A client_id already taken is CodeConflict; an
	// unknown account is CodeNotFound.
	CreateApplication(ctx context.Context, app *Application, audit *AuditEvent) error
	// CreateFirstApplication inserts app unless its account has an application
	// already: it returns app and true, or the account's oldest application and false,
	// and then writes nothing (the audit record included). Concurrent calls for one
	// account insert at most one application between them. An unknown account is
	// CodeNotFound; a client_id already taken CodeConflict.
	CreateFirstApplication(ctx context.Context, app *Application, audit *AuditEvent) (*Application, bool, error)
	// Application returns the account's application or CodeNotFound.
	Application(ctx context.Context, accountID, applicationID string) (*Application, error)
	// ApplicationAdmin returns any account's application by id, or CodeNotFound. It is
	// for the admin API only, where employees address applications by id alone.
	ApplicationAdmin(ctx context.Context, applicationID string) (*Application, error)
	// ApplicationByClientID authenticates a client: it returns the application and its
	// account, or CodeNotFound.
	ApplicationByClientID(ctx context.Context, clientID string) (*Application, *Account, error)
	// ListApplications returns a page of the account's applications and the total.
	ListApplications(ctx context.Context, accountID string, p Page) ([]*Application, int, error)
	// DeleteApplication removes the account's application or returns CodeNotFound.
	DeleteApplication(ctx context.Context, accountID, applicationID string, audit *AuditEvent) error
	// SetApplicationSecret replaces the secret hash and UpdatedAt (to now) and returns
	// the result, or CodeNotFound. When previousUntil is after now, the replaced hash
	// becomes PreviousSecretHash, valid until previousUntil, and any earlier previous
	// secret is dropped (at most two secrets authenticate); otherwise the previous
	// secret is cleared, so the replaced one stops at once.
	SetApplicationSecret(ctx context.Context, accountID, applicationID string, hash []byte, previousUntil, now time.Time, audit *AuditEvent) (*Application, error)
	// SetApplicationCertificate binds the account's application to the one client
	// certificate whose RFC 8705 x5t#S256 is thumbprint (base64url SHA-256 of its DER,
	// unpadded), replacing any earlier binding, sets UpdatedAt to now and returns the
	// result, or CodeNotFound. An empty thumbprint removes the binding. The caller checks
	// the thumbprint's form; the store keeps it as given.
	SetApplicationCertificate(ctx context.Context, accountID, applicationID, thumbprint string, now time.Time, audit *AuditEvent) (*Application, error)
	// SetApplicationSecretRevokingTokens is SetApplicationSecret that also revokes every
	// token the application issued so far, in the same single write: it adds one to
	// TokenGeneration, sets TokensRevokedAt and UpdatedAt to now and returns the
	// result. Concurrent revocations each add one (none is lost), so the generation a
	// caller gets back is above that of every token issued before its call. It clears
	// the previous secret: the replaced one stops at once. CodeNotFound as
	// SetApplicationSecret, and then nothing changes.
	SetApplicationSecretRevokingTokens(ctx context.Context, accountID, applicationID string, hash []byte, now time.Time, audit *AuditEvent) (*Application, error)
}

// KeyStore keeps the token signing keys.
type KeyStore interface {
	// CreateSigningKey inserts k; a kid already taken is CodeConflict.
	CreateSigningKey(ctx context.Context, k *SigningKey) error
	// SigningKeys returns every key, oldest ActiveAt first.
	SigningKeys(ctx context.Context) ([]*SigningKey, error)
	// DeleteSigningKeys removes the keys with those kids (retired keys whose tokens have
	// all expired); unknown kids are ignored.
	DeleteSigningKeys(ctx context.Context, kids []string) error
}
