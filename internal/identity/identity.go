package identity

import (
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/clientca"
	"github.com/skygate/skygate/internal/oauth"
)

// Store is where the service keeps accounts and applications; skygate.Store is one.
type Store interface {
	skygate.AccountStore
	skygate.ApplicationStore
	skygate.ClientKeyStore
	skygate.ApplicationUpdater
}

// Config is what a Service needs. Store and Secrets are required.
type Config struct {
	Store Store
	// Secrets hashes the client secrets the service makes.
	Secrets *oauth.SecretHasher
	// ClientCA issues and checks the client certificates that applications are bound
	// to; nil refuses certificates.
	ClientCA *clientca.Authority
	// Now defaults to time.Now.
	Now skygate.Clock
}

// Service manages accounts, applications, their secrets and certificates.
type Service struct {
	store   Store
	secrets *oauth.SecretHasher
	ca      *clientca.Authority
	now     skygate.Clock
}

// New returns a Service.
func New(c Config) *Service {
	s := &Service{store: c.Store, secrets: c.Secrets, ca: c.ClientCA, now: c.Now}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Target types of the audit records.
const (
	accountType     = "account"
	applicationType = "application"
)
