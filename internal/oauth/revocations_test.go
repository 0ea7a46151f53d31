package oauth_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// memRevocationStore is an in-memory oauth.RevocationStore shared by the "replicas"
// of a test; the SQL engines are tested against the same contract by
// internal/storetest.
type memRevocationStore struct {
	mu   sync.Mutex
	rows []skygate.TokenRevocation
}

func (m *memRevocationStore) RevokeToken(_ context.Context, r *skygate.TokenRevocation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if slices.ContainsFunc(m.rows, func(x skygate.TokenRevocation) bool { return x.JTI == r.JTI }) {
		return nil
	}
	row := *r
	row.Seq = int64(len(m.rows)) + 1
	m.rows = append(m.rows, row)
	return nil
}

func (m *memRevocationStore) TokenRevocationsAfter(_ context.Context, seq int64, now time.Time, limit int) ([]*skygate.TokenRevocation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []*skygate.TokenRevocation{}
	for _, r := range m.rows {
		if r.Seq > seq && !r.ExpiresAt.Before(now) && len(out) < limit {
			out = append(out, &r)
		}
	}
	return out, nil
}

func (m *memRevocationStore) DeleteExpiredTokenRevocations(_ context.Context, t time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.rows)
	m.rows = slices.DeleteFunc(m.rows, func(r skygate.TokenRevocation) bool { return r.ExpiresAt.Before(t) })
	return int64(n - len(m.rows)), nil
}

// TestRevocationList: a revocation applies at once in the list that made it, reaches
// another list over the same store at its next poll (and at Load), and is forgotten
// and purged once its token has expired beyond the leeway.
func TestRevocationList(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	store := &memRevocationStore{}
	here := oauth.NewRevocationList(store, clock.Now, nil)
	there := oauth.NewRevocationList(store, clock.Now, nil)
	rev := &skygate.TokenRevocation{JTI: "jti-1", AccountID: "a", ClientID: "c",
		ExpiresAt: clock.Now().Add(time.Minute), RevokedAt: clock.Now()}
	if err := here.Revoke(t.Context(), rev); err != nil {
		t.Fatal(err)
	}
	if !here.Revoked("jti-1") || there.Revoked("jti-1") || here.Revoked("jti-2") {
		t.Fatal("before a poll: want revoked here only")
	}
	if err := there.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !there.Revoked("jti-1") {
		t.Fatal("after a poll: not revoked there")
	}
	later := oauth.NewRevocationList(store, clock.Now, nil)
	if err := later.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !later.Revoked("jti-1") {
		t.Fatal("after Load: not revoked")
	}
	// Past exp and the leeway: forgotten at the next poll, and purged.
	clock.Advance(2 * time.Minute)
	if err := there.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if there.Revoked("jti-1") {
		t.Error("an expired token's revocation is still held")
	}
	if n, err := here.Purge(t.Context()); err != nil || n != 1 {
		t.Errorf("Purge: %d, %v; want 1", n, err)
	}
}

// TestVerifierRefusesRevokedCachedToken: a token verified (and so cached) before its
// revocation is refused after it, and another token stays valid.
func TestVerifierRefusesRevokedCachedToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	list := oauth.NewRevocationList(&memRevocationStore{}, f.clock.Now, nil)
	v := MustVerifier(t, f.keys, oauth.VerifierConfig{Issuer: testIssuer, Clock: f.clock.Now, Revoked: list.Revoked})
	tok, other := f.MustIssue(t), f.MustIssue(t)
	c := MustVerify(t, v, tok)
	MustVerify(t, v, tok) // from the cache
	if err := list.Revoke(t.Context(), &skygate.TokenRevocation{JTI: c.ID, AccountID: c.AccountID, ClientID: c.ClientID,
		ExpiresAt: c.ExpiresAt, RevokedAt: f.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(t.Context(), tok); !errors.Is(err, oauth.ErrInvalidToken) {
		t.Errorf("a revoked cached token: %v, want ErrInvalidToken", err)
	}
	MustVerify(t, v, other)
}

// lateStore is a memRevocationStore whose rows may be hidden, as a PostgreSQL row is
// until its transaction commits.
type lateStore struct {
	memRevocationStore
	hidden map[string]bool
}

func (m *lateStore) TokenRevocationsAfter(ctx context.Context, seq int64, now time.Time, limit int) ([]*skygate.TokenRevocation, error) {
	all, err := m.memRevocationStore.TokenRevocationsAfter(ctx, seq, now, limit)
	return slices.DeleteFunc(all, func(r *skygate.TokenRevocation) bool { return m.hidden[r.JTI] }), err
}

// TestRevocationListLateCommit: a revocation whose seq is below one already read,
// because it committed later, is still read by a poll within the lag.
func TestRevocationListLateCommit(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	store := &lateStore{hidden: map[string]bool{"slow": true}}
	l := oauth.NewRevocationList(store, clock.Now, nil)
	exp := clock.Now().Add(time.Hour)
	for _, jti := range []string{"slow", "fast"} {
		if err := store.RevokeToken(t.Context(), &skygate.TokenRevocation{JTI: jti, AccountID: "a", ClientID: "c", ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(250 * time.Millisecond)
	if err := l.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !l.Revoked("fast") || l.Revoked("slow") {
		t.Fatal("before the commit: want fast only")
	}
	delete(store.hidden, "slow") // it commits
	clock.Advance(250 * time.Millisecond)
	if err := l.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !l.Revoked("slow") {
		t.Error("a revocation that committed after a higher seq was read is missed")
	}
	// The same long after the start, when polls read after a seq held 2 s ago.
	clock.Advance(3 * time.Second)
	if err := l.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	store.hidden["slow2"] = true
	for _, jti := range []string{"slow2", "fast2"} {
		if err := store.RevokeToken(t.Context(), &skygate.TokenRevocation{JTI: jti, AccountID: "a", ClientID: "c", ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(250 * time.Millisecond)
	if err := l.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !l.Revoked("fast2") || l.Revoked("slow2") {
		t.Fatal("before the second commit: want fast2 only")
	}
	delete(store.hidden, "slow2")
	clock.Advance(250 * time.Millisecond)
	if err := l.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !l.Revoked("slow2") {
		t.Error("a late commit long after the start is missed")
	}
}
