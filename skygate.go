// Package skygate holds the domain of the Skygate service: accounts, applications,
// signing keys, the catalog, bookings and their state machine, the error type with its
// stable codes, and the store interfaces that the storage engines implement.
//
// It imports the standard library only. Every other package points toward it.
package skygate

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/hex"
	"strings"
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
// form: 48 bits of Unix milliseconds, then 74 random bits. Ids made later sort later
// (to the millisecond), so a new row's key lands at the right edge of its B-tree index
// instead of on a random page: a batch of inserts dirties a few pages, not one per row,
// which is most of what a commit writes. The id reveals when it was made, which every
// resource also shows in created_at.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[6:])
	ms := uint64(time.Now().UnixMilli())
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
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
