// Package skygate holds the domain of the Skygate service: accounts, applications,
// signing keys, the catalog, bookings and their state machine, the error type with its
// stable codes, and the store interfaces that the storage engines implement.
//
// It imports the standard library only. Every other package points toward it.
package skygate

import (
	"context"
	"time"
)

// Clock returns the current time. Stores, the token issuer, workers and retries take a
// Clock so tests can move time without sleeping.
type Clock func() time.Time

// Page selects a window of a list: at most Limit items after skipping Offset.
type Page struct {
	Limit  int
	Offset int
}

// Pinger reports whether a backend is reachable; /readyz uses it.
type Pinger interface {
	Ping(ctx context.Context) error
}
