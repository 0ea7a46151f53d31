// Package skygate holds the domain of the Skygate service: accounts, applications,
// signing keys, the catalog, bookings and their state machine, the error type with its
// stable codes, and the store interfaces that the storage engines implement.
//
// It imports the standard library and one library, github.com/google/uuid, which
// NewID uses: the domain constructors (NewEvent, NewAuditEvent) make ids, so id
// generation lives here rather than in a package that would import this one, and that
// library has no dependencies of its own. Every other package points toward it.
package skygate

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Clock returns the current time. Stores, the token issuer, workers and retries take a
// Clock so tests can move time without sleeping.
type Clock func() time.Time

// Page selects a window of a list: at most Limit items after skipping Offset.
type Page struct {
	Limit  int
	Offset int
}

// List is a page of a list in the shape every Skygate list has:
// {"data":[…],"pagination":{"count","offset","total"}}. Data is never null.
type List[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// Pagination says which part of a list Data is: Count items from Offset, of Total.
type Pagination struct {
	Count  int `json:"count"`
	Offset int `json:"offset"`
	Total  int `json:"total"`
}

// NewList returns the page data at offset of a list of total items.
func NewList[T any](data []T, offset, total int) *List[T] {
	if data == nil {
		data = []T{}
	}
	return &List[T]{Data: data, Pagination: Pagination{Count: len(data), Offset: offset, Total: total}}
}

// Pinger reports whether a backend is reachable; /readyz uses it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// NewID returns a time-ordered (version 7, RFC 9562) UUID in its canonical lowercase
// form, made by github.com/google/uuid: 48 bits of Unix milliseconds, 12 bits of
// sub-millisecond time, then 62 random bits. Within a process every id sorts after the
// ones made before it (the library bumps the 12 bits when the clock does not move), and
// across processes to the millisecond. So a new row's key lands at the right edge of
// its B-tree index instead of on a random page: a batch of inserts dirties a few pages,
// not one per row, which is most of what a commit writes. The id reveals when it was
// made, which every resource also shows in created_at.
func NewID() string {
	// NewV7 fails only when crypto/rand does, which crashes the program first.
	return uuid.Must(uuid.NewV7()).String()
}

// IsID reports whether s is a UUID in canonical lowercase form; path parameters that
// are not are answered 404 without a store lookup.
func IsID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range []byte(s) {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		if dash != (c == '-') || !dash && !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// NewClientID returns a new public client identifier: "skg_" and 20 random base32
// characters.
func NewClientID() string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return "skg_" + strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))
}
