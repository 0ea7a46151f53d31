package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// MustCreateAccount inserts an active account with a random id and name, created and
// updated at T0; opts change it before the insert. It returns the account as stored.
func MustCreateAccount(tb testing.TB, s skygate.Store, opts ...func(*skygate.Account)) *skygate.Account {
	tb.Helper()
	a := &skygate.Account{
		ID:        NewID(),
		Name:      "account " + NewID(),
		Status:    skygate.AccountActive,
		CreatedAt: T0,
		UpdatedAt: T0,
	}
	for _, o := range opts {
		o(a)
	}
	MustNoError(tb, s.CreateAccount(tb.Context(), a, Audit("CreateAccount")), "CreateAccount")
	return a
}

// MustCreateApplication inserts an application of the account with a random id,
// client id and secret hash, two scopes and T0 times; opts change it before the
// insert. It returns the application as stored.
func MustCreateApplication(tb testing.TB, s skygate.Store, accountID string, opts ...func(*skygate.Application)) *skygate.Application {
	tb.Helper()
	app := &skygate.Application{
		ID:            NewID(),
		AccountID:     accountID,
		Name:          "application " + NewID(),
		ClientID:      "client-" + NewID(),
		SecretHash:    []byte("hash-" + NewID()),
		AllowedScopes: []string{skygate.ScopeBookingRead, skygate.ScopeBookingWrite},
		CreatedAt:     T0,
		UpdatedAt:     T0,
	}
	for _, o := range opts {
		o(app)
	}
	MustNoError(tb, s.CreateApplication(tb.Context(), app, Audit("CreateApplication")), "CreateApplication")
	return app
}

// MustAccount reads the account back.
func MustAccount(tb testing.TB, s skygate.Store, accountID string) *skygate.Account {
	tb.Helper()
	a, err := s.Account(tb.Context(), accountID)
	MustNoError(tb, err, "Account")
	return a
}

// Audit returns a record of action for a test's audited write (the store refuses those
// writes without one), by the actor "test".
func Audit(action string) *skygate.AuditEvent {
	return &skygate.AuditEvent{ID: skygate.NewID(), Actor: "test", Action: action, TargetType: "test", TargetID: "test", At: time.Now().UTC()}
}
