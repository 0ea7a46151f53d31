package login

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/skygate/skygate"
)

// memCodes is an in-memory skygate.LoginCodeStore with the contract of the SQL one.
type memCodes struct {
	mu    sync.Mutex
	codes []*skygate.LoginCode
}

var _ skygate.LoginCodeStore = (*memCodes)(nil)

func (m *memCodes) CreateLoginCode(_ context.Context, c *skygate.LoginCode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, old := range m.codes {
		if bytes.Equal(old.Hash, c.Hash) {
			return skygate.Errorf(skygate.CodeConflict, "the login code already exists")
		}
	}
	cp := *c
	cp.Roles, cp.Scopes = slices.Clone(c.Roles), slices.Clone(c.Scopes)
	if cp.Roles == nil {
		cp.Roles = []string{}
	}
	if cp.Scopes == nil {
		cp.Scopes = []string{}
	}
	m.codes = append(m.codes, &cp)
	return nil
}

func (m *memCodes) ConsumeLoginCode(_ context.Context, hash []byte, now time.Time) (*skygate.LoginCode, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.codes {
		if bytes.Equal(c.Hash, hash) && c.UsedAt == nil && c.ExpiresAt.After(now) {
			used := now
			c.UsedAt = &used
			cp := *c
			return &cp, nil
		}
	}
	return nil, skygate.Errorf(skygate.CodeNotFound, "the login code is unknown, used or expired")
}

func (m *memCodes) DeleteExpiredLoginCodes(_ context.Context, t time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.codes)
	m.codes = slices.DeleteFunc(m.codes, func(c *skygate.LoginCode) bool { return c.ExpiresAt.Before(t) })
	return int64(n - len(m.codes)), nil
}

// all returns copies of the stored codes.
func (m *memCodes) all() []skygate.LoginCode {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]skygate.LoginCode, len(m.codes))
	for i, c := range m.codes {
		out[i] = *c
	}
	return out
}

// memKeys is an in-memory skygate.KeyStore.
type memKeys struct {
	mu   sync.Mutex
	keys []*skygate.SigningKey
}

func (m *memKeys) CreateSigningKey(_ context.Context, k *skygate.SigningKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *k
	m.keys = append(m.keys, &cp)
	return nil
}

func (m *memKeys) SigningKeys(context.Context) ([]*skygate.SigningKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*skygate.SigningKey, len(m.keys))
	for i, k := range m.keys {
		cp := *k
		out[i] = &cp
	}
	slices.SortFunc(out, func(a, b *skygate.SigningKey) int { return a.ActiveAt.Compare(b.ActiveAt) })
	return out, nil
}

func (m *memKeys) DeleteSigningKeys(_ context.Context, kids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys = slices.DeleteFunc(m.keys, func(k *skygate.SigningKey) bool { return slices.Contains(kids, k.ID) })
	return nil
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(t time.Time) *clock { return &clock{now: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
