package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// Rotation of an application's secret with a grace period (SetApplicationSecret's
// previousUntil): the replaced hash becomes the previous secret with its expiry, a
// second rotation drops the oldest, a rotation at once or a revocation of the tokens
// clears it, and another account's application is out of reach
// (testApplicationOtherAccount).

func testApplicationSetSecretWithGrace(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	app := MustCreateApplication(t, s, acc.ID)
	other := MustCreateApplication(t, s, acc.ID)
	now := At(time.Hour + 999*time.Nanosecond)
	until := now.Add(24*time.Hour + 999*time.Nanosecond)

	check := func(what string, got *skygate.Application, want *skygate.Application) {
		t.Helper()
		wantEqual(t, what+": returned application", got, want)
		wantEqual(t, what+": stored application", MustApplication(t, s, acc.ID, app.ID), want)
		byClient, _, err := s.ApplicationByClientID(t.Context(), app.ClientID)
		MustNoError(t, err, "ApplicationByClientID")
		wantEqual(t, what+": application by client id", byClient, want)
	}

	got, err := s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("second"), until, now, Audit("SetApplicationSecret"))
	MustNoError(t, err, "SetApplicationSecret with grace")
	want := *app
	want.SecretHash, want.UpdatedAt = []byte("second"), Stored(now)
	want.PreviousSecretHash, want.PreviousSecretExpiresAt = app.SecretHash, Stored(until)
	check("with grace", got, &want)
	if !got.PreviousSecretValid(until.Add(-time.Microsecond)) || got.PreviousSecretValid(Stored(until)) {
		t.Errorf("PreviousSecretValid around the expiry %v: wrong", got.PreviousSecretExpiresAt)
	}
	wantEqual(t, "other application", MustApplication(t, s, acc.ID, other.ID), other)

	// A second rotation during the grace period drops the oldest secret.
	later, laterUntil := now.Add(time.Minute), until.Add(time.Minute)
	got, err = s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("third"), laterUntil, later, Audit("SetApplicationSecret"))
	MustNoError(t, err, "SetApplicationSecret during the grace period")
	want.SecretHash, want.UpdatedAt = []byte("third"), Stored(later)
	want.PreviousSecretHash, want.PreviousSecretExpiresAt = []byte("second"), Stored(laterUntil)
	check("second rotation", got, &want)

	// A rotation at once (no expiry, or one not after now) clears the previous secret.
	for i, previousUntil := range []time.Time{{}, later.Add(time.Minute)} {
		at := later.Add(time.Duration(i+1) * time.Minute)
		got, err = s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("at once"), previousUntil, at, Audit("SetApplicationSecret"))
		MustNoError(t, err, "SetApplicationSecret at once")
		want.SecretHash, want.UpdatedAt = []byte("at once"), Stored(at)
		want.PreviousSecretHash, want.PreviousSecretExpiresAt = nil, time.Time{}
		check("at once", got, &want)
		// Give it a previous secret again for the next round.
		got, err = s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("graced"), until, at, Audit("SetApplicationSecret"))
		MustNoError(t, err, "SetApplicationSecret with grace again")
		want.SecretHash, want.PreviousSecretHash, want.PreviousSecretExpiresAt = []byte("graced"), []byte("at once"), Stored(until)
		check("with grace again", got, &want)
	}

	// Revoking the tokens stops the previous secret too.
	revokedAt := later.Add(time.Hour)
	got, err = s.SetApplicationSecretRevokingTokens(t.Context(), acc.ID, app.ID, []byte("revoked"), revokedAt, Audit("SetApplicationSecretRevokingTokens"))
	MustNoError(t, err, "SetApplicationSecretRevokingTokens")
	want.SecretHash, want.UpdatedAt, want.TokensRevokedAt = []byte("revoked"), Stored(revokedAt), Stored(revokedAt)
	want.TokenGeneration++
	want.PreviousSecretHash, want.PreviousSecretExpiresAt = nil, time.Time{}
	check("revocation", got, &want)
	wantEqual(t, "other application at the end", MustApplication(t, s, acc.ID, other.ID), other)
}
