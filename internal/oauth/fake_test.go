package oauth_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// fakeClock is a skygate.Clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// memKeyStore is an in-memory skygate.KeyStore. The SQL engines are tested against
// the same contract by internal/storetest.
type memKeyStore struct {
	mu    sync.Mutex
	keys  map[string]*skygate.SigningKey
	loads atomic.Int64 // calls of SigningKeys
}

var _ skygate.KeyStore = (*memKeyStore)(nil)

func newMemKeyStore() *memKeyStore { return &memKeyStore{keys: map[string]*skygate.SigningKey{}} }

func (s *memKeyStore) CreateSigningKey(_ context.Context, k *skygate.SigningKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[k.ID]; ok {
		return skygate.Errorf(skygate.CodeConflict, "signing key exists")
	}
	c := *k
	s.keys[k.ID] = &c
	return nil
}

func (s *memKeyStore) SigningKeys(context.Context) ([]*skygate.SigningKey, error) {
	s.loads.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*skygate.SigningKey, 0, len(s.keys))
	for _, k := range s.keys {
		c := *k
		out = append(out, &c)
	}
	slices.SortFunc(out, func(a, b *skygate.SigningKey) int { return a.ActiveAt.Compare(b.ActiveAt) })
	return out, nil
}

func (s *memKeyStore) DeleteSigningKeys(_ context.Context, kids []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, kid := range kids {
		delete(s.keys, kid)
	}
	return nil
}

func (s *memKeyStore) kids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for kid := range s.keys {
		out = append(out, kid)
	}
	slices.Sort(out)
	return out
}

// memAppStore is an in-memory oauth.ApplicationLookup, with the accounts it needs and
// the writes of skygate.ApplicationStore that the tests make (without audit records).
type memAppStore struct {
	mu       sync.Mutex
	apps     map[string]*skygate.Application // by client_id
	accounts map[string]*skygate.Account
	// failClientID makes ApplicationByClientID fail like a broken database.
	failClientID string
	// reads counts calls of ApplicationByClientID.
	reads atomic.Int64
	// block, when set, is received from inside ApplicationByClientID before it reads.
	block chan struct{}
}

var _ oauth.ApplicationLookup = (*memAppStore)(nil)

func newMemAppStore() *memAppStore {
	return &memAppStore{apps: map[string]*skygate.Application{}, accounts: map[string]*skygate.Account{}}
}

func (s *memAppStore) addAccount(a *skygate.Account) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accounts[a.ID] = a
}

// setAccountStatus changes an account as another replica would.
func (s *memAppStore) setAccountStatus(id string, st skygate.AccountStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *s.accounts[id]
	c.Status = st
	s.accounts[id] = &c
}

func (s *memAppStore) CreateApplication(_ context.Context, app *skygate.Application) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.apps[app.ClientID]; ok {
		return skygate.Errorf(skygate.CodeConflict, "client_id taken")
	}
	if _, ok := s.accounts[app.AccountID]; !ok {
		return skygate.Errorf(skygate.CodeNotFound, "account not found")
	}
	c := *app
	s.apps[app.ClientID] = &c
	return nil
}

func (s *memAppStore) Application(_ context.Context, accountID, applicationID string) (*skygate.Application, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.apps {
		if a.ID == applicationID && a.AccountID == accountID {
			c := *a
			return &c, nil
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "application not found")
}

func (s *memAppStore) ApplicationAdmin(_ context.Context, applicationID string) (*skygate.Application, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.apps {
		if a.ID == applicationID {
			c := *a
			return &c, nil
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "application not found")
}

func (s *memAppStore) ApplicationByClientID(_ context.Context, clientID string) (*skygate.Application, *skygate.Account, error) {
	s.reads.Add(1)
	if s.block != nil {
		<-s.block
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if clientID == s.failClientID {
		return nil, nil, errors.New("sql: database on fire at store.go:42")
	}
	a, ok := s.apps[clientID]
	if !ok {
		return nil, nil, skygate.Errorf(skygate.CodeNotFound, "application not found")
	}
	app, acct := *a, *s.accounts[a.AccountID]
	return &app, &acct, nil
}

func (s *memAppStore) ListApplications(_ context.Context, accountID string, _ skygate.Page) ([]*skygate.Application, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*skygate.Application
	for _, a := range s.apps {
		if a.AccountID == accountID {
			c := *a
			out = append(out, &c)
		}
	}
	return out, len(out), nil
}

func (s *memAppStore) DeleteApplication(_ context.Context, accountID, applicationID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, a := range s.apps {
		if a.ID == applicationID && a.AccountID == accountID {
			delete(s.apps, id)
			return nil
		}
	}
	return skygate.Errorf(skygate.CodeNotFound, "application not found")
}

func (s *memAppStore) SetApplicationSecret(_ context.Context, accountID, applicationID string, hash []byte, previousUntil, now time.Time) (*skygate.Application, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.apps {
		if a.ID == applicationID && a.AccountID == accountID {
			a.PreviousSecretHash, a.PreviousSecretExpiresAt = nil, time.Time{}
			if previousUntil.After(now) {
				a.PreviousSecretHash, a.PreviousSecretExpiresAt = a.SecretHash, previousUntil
			}
			a.SecretHash, a.UpdatedAt = hash, now
			c := *a
			return &c, nil
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "application not found")
}

func (s *memAppStore) SetApplicationCertificate(_ context.Context, accountID, applicationID, thumbprint string, now time.Time) (*skygate.Application, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.apps {
		if a.ID == applicationID && a.AccountID == accountID {
			a.ClientCertSHA256, a.UpdatedAt = thumbprint, now
			c := *a
			return &c, nil
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "application not found")
}

func (s *memAppStore) SetApplicationSecretRevokingTokens(_ context.Context, accountID, applicationID string, hash []byte, now time.Time) (*skygate.Application, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.apps {
		if a.ID == applicationID && a.AccountID == accountID {
			a.SecretHash, a.UpdatedAt, a.TokensRevokedAt = hash, now, now
			a.PreviousSecretHash, a.PreviousSecretExpiresAt = nil, time.Time{}
			a.TokenGeneration++
			c := *a
			return &c, nil
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "application not found")
}
