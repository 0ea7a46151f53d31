package oauth

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/skygate/skygate"
)

// RevocationStore is what a RevocationList keeps its revocations in
// (skygate.TokenRevocationStore).
type RevocationStore interface {
	RevokeToken(ctx context.Context, r *skygate.TokenRevocation) error
	TokenRevocationsAfter(ctx context.Context, seq int64, now time.Time, limit int) ([]*skygate.TokenRevocation, error)
	DeleteExpiredTokenRevocations(ctx context.Context, t time.Time) (int64, error)
}

// Polling of a RevocationList.
const (
	// RevocationPollInterval is how often a RevocationList reads the revocations
	// recorded since its last read: a token revoked through another replica is refused
	// here within this interval and the time of one read.
	RevocationPollInterval = 250 * time.Millisecond
	// revocationLag is how far back a poll reads. In PostgreSQL a seq is taken before
	// its row commits, so a row may become visible after one with a higher seq that a
	// poll already passed: each poll reads after the highest seq held revocationLag
	// ago, not after the highest held now, and finds a row whose insert committed
	// within revocationLag of taking its seq (a one-statement insert does).
	revocationLag = 2 * time.Second
	// revocationResyncEvery is how many polls pass between full reads, which find late
	// any row that committed later still.
	revocationResyncEvery = 120
	// revocationBatch bounds the rows of one read.
	revocationBatch = 1000
)

// RevocationList is this process's copy of the revoked access tokens of every account
// (RFC 7009), by jti, until each token's exp. Verifier consults it on every
// verification, cached or not, without a store read: Revoke applies at once here, and
// Run reads the revocations of other replicas every RevocationPollInterval. It is safe
// for concurrent use.
type RevocationList struct {
	store RevocationStore
	clock skygate.Clock
	log   *slog.Logger

	mu   sync.RWMutex
	jtis map[string]time.Time // jti → the token's exp
	seq  int64                // the highest seq read
	// marks are the highest seq held after each read, oldest first, back to the
	// newest one at least revocationLag old.
	marks []seqMark
}

// seqMark is the highest seq a RevocationList held at a time.
type seqMark struct {
	at  time.Time
	seq int64
}

// NewRevocationList returns an empty list over store; Load fills it. log receives
// failed polls (nil discards them).
func NewRevocationList(store RevocationStore, clock skygate.Clock, log *slog.Logger) *RevocationList {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &RevocationList{store: store, clock: clock, log: log, jtis: make(map[string]time.Time)}
}

// Revoked reports whether the token with that jti is revoked.
func (l *RevocationList) Revoked(jti string) bool {
	l.mu.RLock()
	_, ok := l.jtis[jti]
	l.mu.RUnlock()
	return ok
}

// Revoke records r in the store and, once stored, here. Revoking a revoked token
// again is no error.
func (l *RevocationList) Revoke(ctx context.Context, r *skygate.TokenRevocation) error {
	if err := l.store.RevokeToken(ctx, r); err != nil {
		return err
	}
	l.mu.Lock()
	l.jtis[r.JTI] = r.ExpiresAt
	l.mu.Unlock()
	return nil
}

// Load reads every live revocation from the store. serve calls it before it takes
// requests.
func (l *RevocationList) Load(ctx context.Context) error { return l.read(ctx, 0) }

// Poll reads the revocations recorded since the last reads (after the highest seq
// held revocationLag ago) and forgets the expired ones.
func (l *RevocationList) Poll(ctx context.Context) error {
	lagged := l.clock().Add(-revocationLag)
	l.mu.Lock()
	for len(l.marks) > 1 && !l.marks[1].at.After(lagged) {
		l.marks = l.marks[1:]
	}
	var seq int64 // before the first read, none was held: a young list reads all
	if len(l.marks) > 0 && !l.marks[0].at.After(lagged) {
		seq = l.marks[0].seq
	}
	l.mu.Unlock()
	return l.read(ctx, seq)
}

// read adds the live revocations after seq, in batches, and drops the expired ones.
func (l *RevocationList) read(ctx context.Context, seq int64) error {
	now := l.clock()
	// Tokens within the verifier's leeway past their exp are still accepted, so their
	// revocations still count.
	live := now.Add(-leeway * time.Second)
	for {
		batch, err := l.store.TokenRevocationsAfter(ctx, seq, live, revocationBatch)
		if err != nil {
			return err
		}
		l.mu.Lock()
		for _, r := range batch {
			l.jtis[r.JTI] = r.ExpiresAt
			seq = max(seq, r.Seq)
		}
		l.seq = max(l.seq, seq)
		l.mu.Unlock()
		if len(batch) < revocationBatch {
			break
		}
	}
	l.mu.Lock()
	l.marks = append(l.marks, seqMark{at: now, seq: l.seq})
	l.mu.Unlock()
	l.forgetExpired(now)
	return nil
}

// forgetExpired drops the revocations of tokens that expired (beyond the verifier's
// leeway) before now: the verifier refuses those tokens for their exp.
func (l *RevocationList) forgetExpired(now time.Time) {
	cutoff := now.Add(-leeway * time.Second)
	l.mu.Lock()
	defer l.mu.Unlock()
	for jti, exp := range l.jtis {
		if exp.Before(cutoff) {
			delete(l.jtis, jti)
		}
	}
}

// Purge deletes from the store the revocations of tokens that expired (beyond the
// verifier's leeway), which no replica needs any more.
func (l *RevocationList) Purge(ctx context.Context) (int64, error) {
	return l.store.DeleteExpiredTokenRevocations(ctx, l.clock().Add(-leeway*time.Second))
}

// Run polls every RevocationPollInterval, and reads everything again now and then,
// until ctx ends. A failed read is logged and retried at the next tick.
func (l *RevocationList) Run(ctx context.Context) error {
	t := time.NewTicker(RevocationPollInterval)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		var err error
		if n%revocationResyncEvery == 0 {
			err = l.Load(ctx)
		} else {
			err = l.Poll(ctx)
		}
		if err != nil && ctx.Err() == nil {
			l.log.WarnContext(ctx, "reading token revocations failed", "err", err)
		}
	}
}
