package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// Revocation of an application's tokens (SetApplicationSecretRevokingTokens): the new
// secret and TokensNotBefore are one write, the cut-off is a whole second, and every
// revocation moves it forward, also against a concurrent one.

func testApplicationRevokeTokens(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	other := MustCreateApplication(t, s, acc.ID)
	now := At(time.Hour + 999*time.Nanosecond)
	notBefore := now.Add(2 * time.Second) // T0 has a fraction of a second

	got, err := s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("new hash"), notBefore, now)
	MustNoError(t, err, "SetApplicationSecretRevokingTokens")
	want := *app
	want.SecretHash = []byte("new hash")
	want.UpdatedAt = Stored(now)
	want.TokensNotBefore = notBefore.UTC().Truncate(time.Second).Add(time.Second)
	wantEqual(t, "returned application", got, &want)
	wantEqual(t, "stored application", MustApplication(t, s, acc.ID, app.ID), &want)
	byClient, _, err := s.ApplicationByClientID(t.Context(), app.ClientID)
	MustNoError(t, err, "ApplicationByClientID")
	wantEqual(t, "application by client id", byClient, &want)
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, other.ID), other)

	// A rotation without revocation keeps the cut-off.
	later := now.Add(time.Minute)
	got, err = s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("third hash"), later)
	MustNoError(t, err, "SetApplicationSecret")
	want.SecretHash, want.UpdatedAt = []byte("third hash"), Stored(later)
	wantEqual(t, "after a rotation without revocation", got, &want)

	// A later revocation at a whole second takes that second.
	whole := want.TokensNotBefore.Add(time.Hour)
	got, err = s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("fourth hash"), whole, later)
	MustNoError(t, err, "SetApplicationSecretRevokingTokens at a whole second")
	want.SecretHash, want.TokensNotBefore = []byte("fourth hash"), whole
	wantEqual(t, "after a revocation at a whole second", got, &want)

	// An unknown application changes nothing.
	_, err = s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, NewID(), []byte("x"), later, later)
	WantCode(t, err, skygate.CodeNotFound)

	// TokensNotBefore given at creation is kept.
	created := MustCreateApplication(t, s, acc.ID, func(a *skygate.Application) { a.TokensNotBefore = whole })
	wantEqual(t, "created with a cut-off", MustApplication(t, s, acc.ID, created.ID), created)
}

// testApplicationRevokeTwice: a second revocation whose cut-off would not be later
// than the first moves it one second on, past the tokens issued in between (whose iat
// is at least the first cut-off).
func testApplicationRevokeTwice(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	notBefore := At(3 * time.Second)
	first, err := s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("h1"), notBefore, At(time.Second))
	MustNoError(t, err, "first revocation")
	for i, nb := range []time.Time{notBefore.Add(time.Millisecond), notBefore.Add(-time.Hour)} {
		got, err := s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("h"), nb, At(time.Second))
		MustNoError(t, err, "next revocation")
		wantEqual(t, "cut-off after the next revocation", got.TokensNotBefore, first.TokensNotBefore.Add(time.Duration(i+1)*time.Second))
	}
}

// testApplicationRevokeConcurrently: concurrent revocations with one cut-off each see
// the one before, so the cut-off ends one second further per revocation.
func testApplicationRevokeConcurrently(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	notBefore := At(time.Minute)
	const n = 10
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("h"), notBefore, notBefore)
			if err != nil {
				t.Errorf("revocation: %v", err)
			}
		})
	}
	wg.Wait()
	want := notBefore.UTC().Truncate(time.Second).Add(time.Second).Add((n - 1) * time.Second)
	wantEqual(t, "cut-off after concurrent revocations", MustApplication(t, s, acc.ID, app.ID).TokensNotBefore, want)
}
