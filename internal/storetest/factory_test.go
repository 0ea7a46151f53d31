package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// MustCreateSigningKey inserts a key with a random kid and key bytes, created at T0
// and active an hour later; opts change it before the insert.
func MustCreateSigningKey(tb testing.TB, s skygate.Store, opts ...func(*skygate.SigningKey)) *skygate.SigningKey {
	tb.Helper()
	k := &skygate.SigningKey{
		ID:            NewID(),
		PrivateKeyEnc: []byte("sealed-" + NewID()),
		PublicKeyDER:  []byte("public-" + NewID()),
		CreatedAt:     T0,
		ActiveAt:      T0.Add(time.Hour),
	}
	for _, o := range opts {
		o(k)
	}
	MustNoError(tb, s.CreateSigningKey(tb.Context(), k), "CreateSigningKey")
	return k
}

// MustReplaceCatalog stores data as the new catalog document.
func MustReplaceCatalog(tb testing.TB, s skygate.Store, data string, now time.Time) *skygate.CatalogDocument {
	tb.Helper()
	doc, err := s.ReplaceCatalog(tb.Context(), []byte(data), now)
	MustNoError(tb, err, "ReplaceCatalog")
	return doc
}

// MustApplication reads the account's application back.
func MustApplication(tb testing.TB, s skygate.Store, accountID, applicationID string) *skygate.Application {
	tb.Helper()
	app, err := s.Application(tb.Context(), accountID, applicationID)
	MustNoError(tb, err, "Application")
	return app
}

// MustSigningKeys lists the signing keys.
func MustSigningKeys(tb testing.TB, s skygate.Store) []*skygate.SigningKey {
	tb.Helper()
	keys, err := s.SigningKeys(tb.Context())
	MustNoError(tb, err, "SigningKeys")
	return keys
}

// WithAccountName sets the account's name.
func WithAccountName(name string) func(*skygate.Account) {
	return func(a *skygate.Account) { a.Name = name }
}

// WithAccountTimes sets the account's creation and update times.
func WithAccountTimes(created, updated time.Time) func(*skygate.Account) {
	return func(a *skygate.Account) { a.CreatedAt, a.UpdatedAt = created, updated }
}

// WithClientID sets the application's client id.
func WithClientID(clientID string) func(*skygate.Application) {
	return func(app *skygate.Application) { app.ClientID = clientID }
}

// WithApplicationCreated sets the application's creation and update time.
func WithApplicationCreated(t time.Time) func(*skygate.Application) {
	return func(app *skygate.Application) { app.CreatedAt, app.UpdatedAt = t, t }
}

// WithActiveAt sets when the key starts signing.
func WithActiveAt(t time.Time) func(*skygate.SigningKey) {
	return func(k *skygate.SigningKey) { k.ActiveAt = t }
}
