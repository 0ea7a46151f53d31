package ratelimit

import (
	"context"
	"crypto/sha256"
	"math"
	"time"
)

// Rate is a sustained number of requests per second and the burst allowed on top.
// A Rate with PerSecond <= 0 allows everything.
type Rate struct {
	PerSecond float64
	Burst     int
}

// Enabled reports whether r limits anything.
func (r Rate) Enabled() bool { return r.PerSecond > 0 }

// interval is the time one request "costs".
func (r Rate) interval() time.Duration {
	return time.Duration(float64(time.Second) / r.PerSecond)
}

func (r Rate) burst() int64 { return int64(max(r.Burst, 1)) }

// Decision is the outcome of one Allow, with what the RateLimit headers say.
type Decision struct {
	Allowed bool
	// Limit is the burst size: requests allowed at once after a quiet period.
	Limit int
	// Remaining is how many more requests would be allowed right now.
	Remaining int
	// Reset is when the allowance is full again.
	Reset time.Duration
	// RetryAfter is when a refused request may be retried (zero when allowed).
	RetryAfter time.Duration
}

// Limiter decides for one key at a time. Implementations are safe for concurrent use.
//
// Keys may come from clients (an address, a client_id) and be of any length: a
// Limiter stores a 128-bit digest of each, never the key, and forgets a key once its
// allowance is full again.
type Limiter interface {
	// Allow counts one request against key and says whether it may proceed.
	Allow(ctx context.Context, key string, r Rate) (Decision, error)
	// Refund gives back one request that Allow allowed for key with the same r, as if
	// it had not been made. The allowance never grows past full: a refund of a key that
	// is already full (or unknown) does nothing.
	Refund(ctx context.Context, key string, r Rate) error
}

// digest is what a limiter stores in place of a key: the first 128 bits of its
// SHA-256 (digestOf), which no two keys in use share by accident, no one can aim at
// another key's on purpose, and every replica computes alike.
type digest [16]byte

func digestOf(key string) digest {
	sum := sha256.Sum256([]byte(key))
	return digest(sum[:16])
}

// gcra is the algorithm on a theoretical arrival time (tat): it returns the new tat to
// store (unchanged when refused) and the decision. Times are in one unit (ns or µs).
func gcra(now, tat, interval, burst int64) (newTAT int64, d Decision) {
	if tat < now {
		tat = now
	}
	next := tat + interval
	allowAt := next - burst*interval
	d.Limit = int(burst)
	if now < allowAt {
		d.RetryAfter = time.Duration(allowAt - now)
		d.Reset = time.Duration(tat - now)
		return tat, d
	}
	d.Allowed = true
	d.Remaining = int(math.Floor(float64(burst*interval-(next-now)) / float64(interval)))
	d.Reset = time.Duration(next - now)
	return next, d
}
