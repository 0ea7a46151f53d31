package oauth

import (
	"context"
	"sync"
	"time"

	"github.com/skygate/skygate"
)

// ApplicationLookup finds an application and its account by client_id
// (skygate.ApplicationStore's method of that name).
type ApplicationLookup interface {
	ApplicationByClientID(ctx context.Context, clientID string) (*skygate.Application, *skygate.Account, error)
}

// DefaultApplicationCacheSize bounds the applications an ApplicationCache keeps.
const DefaultApplicationCacheSize = 1 << 16

// ApplicationCache answers ApplicationByClientID from memory for ttl after reading
// the store, so that a client asking for tokens, or a booking call checking the
// certificate binding, does not cost a database round trip each time.
//
// Its contract with the admin API: a change made through this process (Forget,
// ForgetAccount, called after the change commits) applies at once; a change made by
// another replica applies within ttl. The token endpoint does not let the cache
// refuse a secret that was just set elsewhere: ClientAuthenticator re-reads the store
// when a secret does not match a cached application (Reload).
//
// Unknown client ids are cached only when they come from verified tokens
// (TokenApplication), so a flood of made-up ids cannot fill memory; past its size the
// cache drops expired entries and, when none has expired, stops adding until some do.
// Returned values are shared: callers must not modify them.
type ApplicationCache struct {
	store ApplicationLookup
	ttl   time.Duration
	now   skygate.Clock
	max   int

	mu      sync.RWMutex
	entries map[string]*appEntry // by client_id
	// swept is when a full cache last looked for expired entries: at most once per
	// ttl, since none can have expired sooner, so a full cache does not scan itself on
	// every miss.
	swept time.Time
	// gen counts forgets: a store read that started before one does not put what it
	// read into the cache, since it may predate the change.
	gen uint64
}

// appEntry is immutable once stored. An entry with a nil app (and account) records
// that no application has the client id (see TokenApplication).
type appEntry struct {
	app   *skygate.Application
	acct  *skygate.Account
	until time.Time
}

// errNoApplication is the answer of a cached absence.
var errNoApplication = skygate.Errorf(skygate.CodeNotFound, "application not found")

// NewApplicationCache returns a cache over store keeping entries for ttl; ttl ≤ 0
// caches nothing (every lookup reads the store).
func NewApplicationCache(store ApplicationLookup, ttl time.Duration, now skygate.Clock) *ApplicationCache {
	if now == nil {
		now = time.Now
	}
	return &ApplicationCache{store: store, ttl: ttl, now: now, max: DefaultApplicationCacheSize,
		entries: make(map[string]*appEntry)}
}

// ApplicationByClientID returns the application and its account, from memory when
// read less than ttl ago, else from the store; CodeNotFound for an unknown client.
func (c *ApplicationCache) ApplicationByClientID(ctx context.Context, clientID string) (*skygate.Application, *skygate.Account, error) {
	app, acct, _, err := c.lookup(ctx, clientID, false)
	return app, acct, err
}

// TokenApplication is ApplicationByClientID for the client_id of a verified token,
// which names an application that existed when the token was issued. It also
// remembers for ttl that the application is gone, so that every request with a
// deleted application's token does not cost a store read. Call it with nothing but
// the client ids of verified tokens: those of unverified input must not grow the
// cache.
func (c *ApplicationCache) TokenApplication(ctx context.Context, clientID string) (*skygate.Application, *skygate.Account, error) {
	app, acct, _, err := c.lookup(ctx, clientID, true)
	return app, acct, err
}

// lookup is ApplicationByClientID that also says whether the answer came from memory
// and, when absent is set, remembers an unknown client (TokenApplication).
func (c *ApplicationCache) lookup(ctx context.Context, clientID string, absent bool) (app *skygate.Application, acct *skygate.Account, cached bool, err error) {
	c.mu.RLock()
	e := c.entries[clientID]
	c.mu.RUnlock()
	if e != nil && c.now().Before(e.until) {
		if e.app == nil {
			return nil, nil, true, errNoApplication
		}
		return e.app, e.acct, true, nil
	}
	app, acct, err = c.reload(ctx, clientID, absent)
	return app, acct, false, err
}

// reload reads the application from the store and caches what it finds. An unknown
// client is CodeNotFound, and forgotten or, when absent is set, remembered as such.
func (c *ApplicationCache) reload(ctx context.Context, clientID string, absent bool) (*skygate.Application, *skygate.Account, error) {
	c.mu.RLock()
	gen := c.gen
	c.mu.RUnlock()
	app, acct, err := c.store.ApplicationByClientID(ctx, clientID)
	var e *appEntry
	switch {
	case skygate.IsCode(err, skygate.CodeNotFound) && absent:
		e = &appEntry{} // gone: no app, no account
	case skygate.IsCode(err, skygate.CodeNotFound):
		c.mu.Lock()
		delete(c.entries, clientID)
		c.mu.Unlock()
		return nil, nil, err
	case err != nil || acct == nil:
		return app, acct, err
	default:
		e = &appEntry{app: app, acct: acct}
	}
	if c.ttl <= 0 {
		return app, acct, err
	}
	now := c.now()
	e.until = now.Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && c.room(clientID, now) {
		c.entries[clientID] = e
	}
	return app, acct, err
}

// room reports whether clientID fits, dropping expired entries when the cache is full
// and has not looked for them within the ttl. The caller holds mu.
func (c *ApplicationCache) room(clientID string, now time.Time) bool {
	if _, ok := c.entries[clientID]; ok || len(c.entries) < c.max {
		return true
	}
	if now.Sub(c.swept) < c.ttl {
		return false
	}
	c.swept = now
	for id, e := range c.entries {
		if !now.Before(e.until) {
			delete(c.entries, id)
		}
	}
	return len(c.entries) < c.max
}

// Forget drops the application of clientID: call it after changing or deleting the
// application.
func (c *ApplicationCache) Forget(clientID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.entries, clientID)
}

// ForgetAccount drops every application of the account: call it after changing the
// account (its status is part of what the cache returns).
func (c *ApplicationCache) ForgetAccount(accountID string) {
	c.dropAccount(accountID, func(*skygate.Account) bool { return true })
}

// AccountChanged drops the account's applications cached with another status than
// a's. The account poll calls it with every change it learns of, so that a replica's
// token endpoint refuses a suspended account no later than its other routes do.
func (c *ApplicationCache) AccountChanged(a *skygate.Account) {
	c.dropAccount(a.ID, func(cached *skygate.Account) bool { return cached.Status != a.Status })
}

// dropAccount drops the entries of the account whose cached account stale reports
// out of date. Like Forget it stops reads in flight from caching what they read.
func (c *ApplicationCache) dropAccount(accountID string, stale func(cached *skygate.Account) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for id, e := range c.entries {
		if e.acct != nil && e.acct.ID == accountID && stale(e.acct) {
			delete(c.entries, id)
		}
	}
}
