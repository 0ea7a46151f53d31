package identity_test

import (
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/identity"
	"github.com/skygate/skygate/internal/storetest"
)

// TestRotateSecretGrace: the grace period defaults to a day (none with
// revoke_tokens), is bounded, sets the previous secret's expiry by the service's clock
// and is named in the audit record; invalid ones change nothing.
func TestRotateSecretGrace(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, b *bundle) {
		ctx := t.Context()
		now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		svc := identity.New(identity.Config{Store: b.store, Secrets: b.secrets, Now: func() time.Time { return now }})
		acc, err := svc.CreateAccount(ctx, employee, identity.NewAccount{Name: "Grace " + storetest.NewID()})
		storetest.MustNoError(t, err, "CreateAccount")
		app, err := svc.CreateApplication(ctx, employee, identity.NewApplication{AccountID: acc.ID, Name: "Engine", AllowedScopes: scopes})
		storetest.MustNoError(t, err, "CreateApplication")

		for _, c := range []identity.SecretRotation{
			{GraceSeconds: new(-1)},
			{GraceSeconds: new(identity.MaxGraceSeconds + 1)},
			{GraceSeconds: new(1), RevokeTokens: true},
		} {
			c.ApplicationID = app.ID
			_, err := svc.RotateSecret(ctx, employee, c)
			storetest.WantCode(t, err, skygate.CodeValidation)
		}

		for _, tc := range []struct {
			rotation identity.SecretRotation
			grace    time.Duration
			details  string
		}{
			{identity.SecretRotation{}, 24 * time.Hour,
				`{"revoke_tokens":false,"grace_seconds":86400,"previous_secret_expires_at":"2026-03-05T05:06:07Z"}`},
			{identity.SecretRotation{GraceSeconds: new(identity.MaxGraceSeconds)}, 30 * 24 * time.Hour,
				`{"revoke_tokens":false,"grace_seconds":2592000,"previous_secret_expires_at":"2026-04-03T05:06:07Z"}`},
			{identity.SecretRotation{GraceSeconds: new(0)}, 0, `{"revoke_tokens":false,"grace_seconds":0}`},
			{identity.SecretRotation{RevokeTokens: true}, 0, `{"revoke_tokens":true,"grace_seconds":0}`},
		} {
			before, err := svc.Application(ctx, app.ID)
			storetest.MustNoError(t, err, "Application")
			tc.rotation.ApplicationID = app.ID
			rotated, err := svc.RotateSecret(ctx, employee, tc.rotation)
			storetest.MustNoError(t, err, "RotateSecret")
			if !b.secrets.Verify(rotated.ClientSecret, rotated.SecretHash) {
				t.Errorf("%s: the returned secret does not match", tc.details)
			}
			switch {
			case tc.grace == 0 && (rotated.PreviousSecretHash != nil || !rotated.PreviousSecretExpiresAt.IsZero()):
				t.Errorf("%s: previous secret kept: %+v", tc.details, rotated.Application)
			case tc.grace > 0 && (!slices.Equal(rotated.PreviousSecretHash, before.SecretHash) || !rotated.PreviousSecretExpiresAt.Equal(now.Add(tc.grace))):
				t.Errorf("%s: previous secret %x until %v, want %x until %v", tc.details,
					rotated.PreviousSecretHash, rotated.PreviousSecretExpiresAt, before.SecretHash, now.Add(tc.grace))
			}
			events, _, err := b.store.ListAuditEvents(ctx, skygate.AuditFilter{TargetID: app.ID, Action: "application.rotate_secret"}, skygate.Page{Limit: 1})
			storetest.MustNoError(t, err, "ListAuditEvents")
			if got := string(events[0].Details); got != tc.details {
				t.Errorf("audit details %s, want %s", got, tc.details)
			}
		}
		events, total, err := b.store.ListAuditEvents(ctx, skygate.AuditFilter{TargetID: app.ID, Action: "application.rotate_secret"}, skygate.Page{})
		storetest.MustNoError(t, err, "ListAuditEvents")
		if total != 4 {
			t.Errorf("%d rotation records, want 4 (invalid rotations write none): %v", total, events)
		}
	})
}
