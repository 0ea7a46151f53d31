package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// authenticate runs client authentication through the fixture's cache.
func (f *fixture) authenticate(id, secret string) (*skygate.Account, error) {
	auth := oauth.NewClientAuthenticator(f.appCache, f.hasher)
	_, acct, err := auth.Authenticate(context.Background(), oauth.ClientAuth{Method: oauth.AuthMethodPost, ID: id, Secret: secret})
	return acct, err
}

func mustAuthenticate(tb testing.TB, f *fixture, id, secret, what string) {
	tb.Helper()
	if _, err := f.authenticate(id, secret); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
}

// mustStatus authenticates and checks the account status the answer carries.
func mustStatus(tb testing.TB, f *fixture, id, secret string, want skygate.AccountStatus, what string) *skygate.Account {
	tb.Helper()
	acct, err := f.authenticate(id, secret)
	if err != nil || acct.Status != want {
		tb.Fatalf("%s: account %+v, err %v; want status %s", what, acct, err, want)
	}
	return acct
}

func mustRefuse(tb testing.TB, f *fixture, id, secret, what string) {
	tb.Helper()
	var e *oauth.Error
	if _, err := f.authenticate(id, secret); !errors.As(err, &e) || e.Code != oauth.CodeInvalidClient {
		tb.Fatalf("%s: err = %v, want invalid_client", what, err)
	}
}

// rotate gives the application a new secret in the store at once, as another replica
// would, without telling the cache.
func (f *fixture) rotate(tb testing.TB, clientID string) string {
	tb.Helper()
	return f.rotateWithGrace(tb, clientID, 0)
}

// rotateWithGrace is rotate keeping the replaced secret valid for grace.
func (f *fixture) rotateWithGrace(tb testing.TB, clientID string, grace time.Duration) string {
	tb.Helper()
	app, _, err := f.apps.ApplicationByClientID(context.Background(), clientID)
	if err != nil {
		tb.Fatal(err)
	}
	secret := MustSecret(tb)
	if _, err := f.apps.SetApplicationSecret(context.Background(), app.AccountID, app.ID, f.hasher.Hash(secret), f.clock.Now().Add(grace), f.clock.Now()); err != nil {
		tb.Fatal(err)
	}
	return secret
}

// TestApplicationCacheServesFromMemory: within the ttl a client's tokens cost no store
// read; after it, one.
func TestApplicationCacheServesFromMemory(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, secret := f.MustApplication(t, appOptions{})
	for range 10 {
		mustAuthenticate(t, f, id, secret, "cached client")
	}
	if n := f.apps.reads.Load(); n != 1 {
		t.Fatalf("%d store reads for 10 authentications, want 1", n)
	}
	f.clock.Advance(testAppTTL)
	mustAuthenticate(t, f, id, secret, "after the ttl")
	if n := f.apps.reads.Load(); n != 2 {
		t.Fatalf("%d store reads after the ttl, want 2", n)
	}
}

// TestApplicationCacheChangesElsewhere: changes made by another replica (straight in
// the store) apply within the ttl; a new secret works at once.
func TestApplicationCacheChangesElsewhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		after func(t *testing.T, f *fixture, id, old, fresh string)
	}{
		{"the new secret at once", func(t *testing.T, f *fixture, id, old, fresh string) {
			mustAuthenticate(t, f, id, fresh, "the new secret, at once")
			mustRefuse(t, f, id, old, "the old secret once the cache has seen the new one")
		}},
		{"the old secret within the ttl", func(t *testing.T, f *fixture, id, old, _ string) {
			mustAuthenticate(t, f, id, old, "the old secret within the ttl (the documented bound)")
			f.clock.Advance(testAppTTL)
			mustRefuse(t, f, id, old, "the old secret after the ttl")
		}},
	} {
		t.Run("rotated, "+tc.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			id, old := f.MustApplication(t, appOptions{})
			mustAuthenticate(t, f, id, old, "before rotation")
			tc.after(t, f, id, old, f.rotate(t, id))
		})
	}
	t.Run("deleted", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id, secret := f.MustApplication(t, appOptions{})
		mustAuthenticate(t, f, id, secret, "before deletion")
		app, _, _ := f.apps.ApplicationByClientID(context.Background(), id)
		if err := f.apps.DeleteApplication(context.Background(), app.AccountID, app.ID); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(testAppTTL)
		mustRefuse(t, f, id, secret, "a deleted application after the ttl")
		if f.appCache.Len() != 0 {
			t.Errorf("the cache keeps %d entries after the deletion showed", f.appCache.Len())
		}
	})
	t.Run("suspended", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		id, secret := f.MustApplication(t, appOptions{})
		acct := mustStatus(t, f, id, secret, skygate.AccountActive, "before suspension")
		f.apps.setAccountStatus(acct.ID, skygate.AccountSuspended)
		f.clock.Advance(testAppTTL)
		mustStatus(t, f, id, secret, skygate.AccountSuspended, "after the ttl")
	})
}

// TestApplicationCacheForget: changes made through this process (Forget,
// ForgetAccount) or learnt by the account poll (AccountChanged) apply at once.
func TestApplicationCacheForget(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, old := f.MustApplication(t, appOptions{})
	mustAuthenticate(t, f, id, old, "before rotation")
	f.rotate(t, id)
	f.appCache.Forget(id)
	mustRefuse(t, f, id, old, "the old secret after Forget")

	id2, secret2 := f.MustApplication(t, appOptions{})
	acct := mustStatus(t, f, id2, secret2, skygate.AccountActive, "before suspension")
	f.apps.setAccountStatus(acct.ID, skygate.AccountSuspended)
	f.appCache.ForgetAccount(acct.ID)
	mustStatus(t, f, id2, secret2, skygate.AccountSuspended, "after ForgetAccount")

	// The account poll reports a change: entries with another status go, others stay.
	reads := f.apps.reads.Load()
	f.appCache.AccountChanged(&skygate.Account{ID: acct.ID, Status: skygate.AccountSuspended})
	mustAuthenticate(t, f, id2, secret2, "after an unchanged status")
	if n := f.apps.reads.Load(); n != reads {
		t.Errorf("an unchanged status dropped the entry (%d reads)", n-reads)
	}
	f.apps.setAccountStatus(acct.ID, skygate.AccountActive)
	f.appCache.AccountChanged(&skygate.Account{ID: acct.ID, Status: skygate.AccountActive})
	mustStatus(t, f, id2, secret2, skygate.AccountActive, "after AccountChanged")
}

// TestApplicationCacheReadBeforeForget: a store read that began before a Forget does
// not put what it read into the cache, since it may predate the change.
func TestApplicationCacheReadBeforeForget(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id, _ := f.MustApplication(t, appOptions{})
	f.apps.block = make(chan struct{})
	done := make(chan error)
	go func() {
		_, _, err := f.appCache.ApplicationByClientID(context.Background(), id)
		done <- err
	}()
	for f.apps.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	f.appCache.Forget(id)
	close(f.apps.block)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := f.appCache.Len(); n != 0 {
		t.Fatalf("a read older than Forget was cached (%d entries)", n)
	}
	if _, _, err := f.appCache.ApplicationByClientID(context.Background(), id); err != nil || f.appCache.Len() != 1 {
		t.Fatalf("the next read: %v, %d entries", err, f.appCache.Len())
	}
}

// TestApplicationCacheBounded: unknown clients are not cached, and past its bound the
// cache makes room from expired entries only.
func TestApplicationCacheBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.appCache.SetMax(3)
	for i := range 20 {
		mustRefuse(t, f, fmt.Sprintf("nobody-%d", i), MustSecret(t), "an unknown client")
	}
	if n := f.appCache.Len(); n != 0 {
		t.Fatalf("%d unknown clients cached", n)
	}
	ids := map[string]string{}
	for range 5 {
		id, secret := f.MustApplication(t, appOptions{})
		ids[id] = secret
		mustAuthenticate(t, f, id, secret, "a client past the bound")
	}
	if n := f.appCache.Len(); n != 3 {
		t.Fatalf("%d entries, bound 3", n)
	}
	f.clock.Advance(testAppTTL)
	for id, secret := range ids {
		mustAuthenticate(t, f, id, secret, "after the ttl")
	}
	if n := f.appCache.Len(); n != 3 {
		t.Fatalf("%d entries after expiry, bound 3", n)
	}
}

// TestApplicationCacheConcurrent exercises lookups, Forget and ForgetAccount together
// (run with -race); every lookup answers.
func TestApplicationCacheConcurrent(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var clients []string
	for range 4 {
		id, _ := f.MustApplication(t, appOptions{})
		clients = append(clients, id)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				id := clients[(g+i)%len(clients)]
				app, _, err := f.appCache.ApplicationByClientID(context.Background(), id)
				if err != nil || app.ClientID != id {
					t.Errorf("lookup %s: %v", id, err)
					return
				}
				switch i % 50 {
				case 0:
					f.appCache.Forget(id)
				case 25:
					f.appCache.ForgetAccount(app.AccountID)
				}
			}
		})
	}
	wg.Wait()
	if n := f.appCache.Len(); n > len(clients) {
		t.Fatalf("%d entries for %d clients", n, len(clients))
	}
}
