package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// Revocation of an application's tokens (SetApplicationSecretRevokingTokens): the new
// secret, the next TokenGeneration and TokensRevokedAt are one write, every revocation
// adds one, also two at one instant or concurrent ones, and another account's
// application is out of reach.

func testApplicationRevokeTokens(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	other := MustCreateApplication(t, s, acc.ID)
	now := At(time.Hour + 999*time.Nanosecond)

	got, err := s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("new hash"), now, Audit("SetApplicationSecretRevokingTokens"))
	MustNoError(t, err, "SetApplicationSecretRevokingTokens")
	want := *app
	want.SecretHash = []byte("new hash")
	want.UpdatedAt, want.TokensRevokedAt = Stored(now), Stored(now)
	want.TokenGeneration = 1
	wantEqual(t, "returned application", got, &want)
	wantEqual(t, "stored application", MustApplication(t, s, acc.ID, app.ID), &want)
	byClient, _, err := s.ApplicationByClientID(t.Context(), app.ClientID)
	MustNoError(t, err, "ApplicationByClientID")
	wantEqual(t, "application by client id", byClient, &want)
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, other.ID), other)

	// A second revocation at the same instant is a second generation.
	got, err = s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("second hash"), now, Audit("SetApplicationSecretRevokingTokens"))
	MustNoError(t, err, "SetApplicationSecretRevokingTokens at the same instant")
	want.SecretHash, want.TokenGeneration = []byte("second hash"), 2
	wantEqual(t, "after a second revocation at the same instant", got, &want)

	// A rotation without revocation keeps the generation and when it was revoked.
	later := now.Add(time.Minute)
	got, err = s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("third hash"), time.Time{}, later, Audit("SetApplicationSecret"))
	MustNoError(t, err, "SetApplicationSecret")
	want.SecretHash, want.UpdatedAt = []byte("third hash"), Stored(later)
	wantEqual(t, "after a rotation without revocation", got, &want)

	// A later revocation moves TokensRevokedAt on.
	latest := later.Add(time.Hour)
	got, err = s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("fourth hash"), latest, Audit("SetApplicationSecretRevokingTokens"))
	MustNoError(t, err, "SetApplicationSecretRevokingTokens later")
	want.SecretHash, want.TokenGeneration = []byte("fourth hash"), 3
	want.UpdatedAt, want.TokensRevokedAt = Stored(latest), Stored(latest)
	wantEqual(t, "after a later revocation", got, &want)
	wantEqual(t, "stored after a later revocation", MustApplication(t, s, acc.ID, app.ID), &want)

	// An unknown application, or one of another account, is not found and changes
	// nothing.
	_, err = s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, NewID(), []byte("x"), latest, Audit("SetApplicationSecretRevokingTokens"))
	WantCode(t, err, skygate.CodeNotFound)
	intruder := MustCreateAccount(t, s)
	_, err = s.SetApplicationSecretRevokingTokens(t.Context(), intruder.ID, app.ID, []byte("stolen"), latest.Add(time.Hour), Audit("SetApplicationSecretRevokingTokens"))
	WantCode(t, err, skygate.CodeNotFound)
	wantEqual(t, "after another account's revocation", MustApplication(t, s, acc.ID, app.ID), &want)

	// A generation and revocation time given at creation are kept.
	created := MustCreateApplication(t, s, acc.ID, func(a *skygate.Application) {
		a.TokenGeneration, a.TokensRevokedAt = 7, latest
	})
	wantEqual(t, "created with a generation", MustApplication(t, s, acc.ID, created.ID), created)
}

// testApplicationRevokeConcurrently: concurrent revocations each add one: n of them
// leave generation n, and each returned a generation of its own.
func testApplicationRevokeConcurrently(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	now := At(time.Minute)
	const n = 10
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		gens []int
	)
	for range n {
		wg.Go(func() {
			got, err := s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("h"), now, Audit("SetApplicationSecretRevokingTokens"))
			if err != nil {
				t.Errorf("revocation: %v", err)
				return
			}
			mu.Lock()
			gens = append(gens, got.TokenGeneration)
			mu.Unlock()
		})
	}
	wg.Wait()
	wantEqual(t, "generation after concurrent revocations", MustApplication(t, s, acc.ID, app.ID).TokenGeneration, n)
	slices.Sort(gens)
	want := make([]int, n)
	for i := range want {
		want[i] = i + 1
	}
	wantEqual(t, "generations the revocations returned", gens, want)
}
