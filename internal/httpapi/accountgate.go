package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
)

// accountGate answers "is this account active?" on the hot path from memory. A miss
// reads the store once; a poller applies changes made by any replica, so a suspension
// takes effect everywhere within one poll interval and at once on the replica that made
// it (Set). Every change it learns of also goes to the application cache, whose
// entries carry the account's status for the token endpoint.
type accountGate struct {
	store Directory
	apps  *oauth.ApplicationCache
	now   skygate.Clock

	mu     sync.RWMutex
	status map[string]skygate.AccountStatus
	since  time.Time
}

// Active reports whether the account exists and is active.
func (g *accountGate) Active(ctx context.Context, accountID string) (bool, error) {
	g.mu.RLock()
	st, ok := g.status[accountID]
	g.mu.RUnlock()
	if ok {
		return st == skygate.AccountActive, nil
	}
	a, err := g.store.Account(ctx, accountID)
	if skygate.IsCode(err, skygate.CodeNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	g.record(a.ID, a.Status)
	return a.Status == skygate.AccountActive, nil
}

func (g *accountGate) record(accountID string, st skygate.AccountStatus) {
	g.mu.Lock()
	g.status[accountID] = st
	g.mu.Unlock()
}

// Set records a status change made by this replica, here and in the application
// cache.
func (g *accountGate) Set(accountID string, st skygate.AccountStatus) {
	g.record(accountID, st)
	g.apps.ForgetAccount(accountID)
}

// pollOverlap re-reads a little before the last poll so that clock skew between
// replicas cannot hide a change.
const pollOverlap = 5 * time.Second

// Poll applies the account changes since the last poll.
func (g *accountGate) Poll(ctx context.Context) error {
	g.mu.RLock()
	since := g.since
	g.mu.RUnlock()
	started := g.now()
	changed, err := g.store.AccountsUpdatedSince(ctx, since.Add(-pollOverlap))
	if err != nil {
		return err
	}
	for _, a := range changed {
		g.apps.AccountChanged(a)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, a := range changed {
		if _, known := g.status[a.ID]; known {
			g.status[a.ID] = a.Status
		}
	}
	g.since = started
	return nil
}
