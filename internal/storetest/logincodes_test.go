package storetest

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var loginCodeTests = []test{
	{"CreateAndConsume", testLoginCodeCreateAndConsume},
	{"SingleUse", testLoginCodeSingleUse},
	{"Expiry", testLoginCodeExpiry},
	{"Unknown", testLoginCodeUnknown},
	{"Duplicate", testLoginCodeDuplicate},
	{"ConcurrentConsume", testLoginCodeConcurrentConsume},
	{"DeleteExpired", testLoginCodeDeleteExpired},
}

// MustCreateLoginCode inserts a code for a random code string, created at T0 and
// expiring 60 s later, for an admin employee; opts change it before the insert. It
// returns the code as stored.
func MustCreateLoginCode(tb testing.TB, s skygate.Store, opts ...func(*skygate.LoginCode)) *skygate.LoginCode {
	tb.Helper()
	hash := sha256.Sum256([]byte("code-" + NewID()))
	c := &skygate.LoginCode{
		Hash:          hash[:],
		Subject:       "employee-" + NewID(),
		Email:         "employee@example.com",
		Name:          "Employee Émile",
		Roles:         []string{"admin"},
		Scopes:        []string{skygate.ScopeAdminAccounts, skygate.ScopeAdminApplications},
		CodeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
		RedirectURI:   "https://console.example.com/admin/callback?tenant=a&x=%2F",
		CreatedAt:     T0,
		ExpiresAt:     T0.Add(time.Minute),
	}
	for _, o := range opts {
		o(c)
	}
	MustNoError(tb, s.CreateLoginCode(tb.Context(), c), "CreateLoginCode")
	return c
}

func testLoginCodeCreateAndConsume(t *testing.T, s skygate.Store) {
	tests := []struct {
		name string
		opt  func(*skygate.LoginCode)
	}{
		{"admin", func(*skygate.LoginCode) {}},
		{"no role, nil lists", func(c *skygate.LoginCode) { c.Roles, c.Scopes, c.Email, c.Name = nil, nil, "", "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := MustCreateLoginCode(t, s, tt.opt)
			wantUTC(t, "created code", c.CreatedAt, c.ExpiresAt)
			if c.Roles == nil || c.Scopes == nil {
				t.Fatal("CreateLoginCode left nil lists")
			}
			now := At(30*time.Second + 123*time.Nanosecond)
			got, err := s.ConsumeLoginCode(t.Context(), c.Hash, now)
			MustNoError(t, err, "ConsumeLoginCode")
			used := Stored(now)
			want := *c
			want.UsedAt = &used
			wantEqual(t, "consumed code", got, &want)
			wantUTC(t, "consumed code", got.CreatedAt, got.ExpiresAt, *got.UsedAt)
		})
	}
}

func testLoginCodeSingleUse(t *testing.T, s skygate.Store) {
	c := MustCreateLoginCode(t, s)
	_, err := s.ConsumeLoginCode(t.Context(), c.Hash, At(time.Second))
	MustNoError(t, err, "first ConsumeLoginCode")
	_, err = s.ConsumeLoginCode(t.Context(), c.Hash, At(2*time.Second))
	WantCode(t, err, skygate.CodeNotFound)
}

func testLoginCodeExpiry(t *testing.T, s skygate.Store) {
	tests := []struct {
		name string
		at   time.Duration
		code string
	}{
		{"a microsecond before expiry", time.Minute - time.Microsecond, ""},
		{"at expiry", time.Minute, skygate.CodeNotFound},
		{"after expiry", time.Hour, skygate.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := MustCreateLoginCode(t, s)
			_, err := s.ConsumeLoginCode(t.Context(), c.Hash, At(tt.at))
			if tt.code == "" {
				MustNoError(t, err, "ConsumeLoginCode")
				return
			}
			WantCode(t, err, tt.code)
		})
	}
}

func testLoginCodeUnknown(t *testing.T, s skygate.Store) {
	c := MustCreateLoginCode(t, s)
	other := sha256.Sum256([]byte("another code"))
	for _, hash := range [][]byte{other[:], nil, c.Hash[:16]} {
		_, err := s.ConsumeLoginCode(t.Context(), hash, At(time.Second))
		WantCode(t, err, skygate.CodeNotFound)
	}
	// The failed attempts did not use the real code up.
	_, err := s.ConsumeLoginCode(t.Context(), c.Hash, At(time.Second))
	MustNoError(t, err, "ConsumeLoginCode")
}

func testLoginCodeDuplicate(t *testing.T, s skygate.Store) {
	c := MustCreateLoginCode(t, s)
	dup := *c
	dup.Subject = "someone else"
	WantCode(t, s.CreateLoginCode(t.Context(), &dup), skygate.CodeConflict)
	got, err := s.ConsumeLoginCode(t.Context(), c.Hash, At(time.Second))
	MustNoError(t, err, "ConsumeLoginCode")
	wantEqual(t, "subject", got.Subject, c.Subject)
}

func testLoginCodeConcurrentConsume(t *testing.T, s skygate.Store) {
	c := MustCreateLoginCode(t, s)
	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.ConsumeLoginCode(t.Context(), c.Hash, At(time.Second))
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case skygate.IsCode(err, skygate.CodeNotFound):
		default:
			t.Fatalf("consumer %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d concurrent consumers got the code, want exactly 1", won, n)
	}
}

func testLoginCodeDeleteExpired(t *testing.T, s skygate.Store) {
	var codes []*skygate.LoginCode
	for i := range 4 {
		codes = append(codes, MustCreateLoginCode(t, s, func(c *skygate.LoginCode) {
			c.ExpiresAt = At(time.Duration(i+1) * time.Minute)
		}))
	}
	_, err := s.ConsumeLoginCode(t.Context(), codes[0].Hash, At(time.Second))
	MustNoError(t, err, "ConsumeLoginCode")

	// Codes expiring before the cut-off go, used or not; the one expiring exactly at
	// it stays.
	n, err := s.DeleteExpiredLoginCodes(t.Context(), At(3*time.Minute))
	MustNoError(t, err, "DeleteExpiredLoginCodes")
	wantEqual(t, "deleted", n, int64(2))
	n, err = s.DeleteExpiredLoginCodes(t.Context(), At(3*time.Minute))
	MustNoError(t, err, "DeleteExpiredLoginCodes again")
	wantEqual(t, "deleted again", n, int64(0))

	for i, c := range codes {
		_, err := s.ConsumeLoginCode(t.Context(), c.Hash, At(2*time.Minute+30*time.Second))
		switch i {
		case 0, 1: // deleted
			WantCode(t, err, skygate.CodeNotFound)
		default:
			MustNoError(t, err, fmt.Sprintf("ConsumeLoginCode of code %d", i))
		}
	}
}
