package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var tokenRevocationTests = []test{
	{"RevokeAndRead", testTokenRevocationRevokeAndRead},
	{"Idempotent", testTokenRevocationIdempotent},
	{"AfterSeq", testTokenRevocationsAfter},
	{"OtherAccount", testTokenRevocationOtherAccount},
	{"UnknownAccount", testTokenRevocationUnknownAccount},
	{"DeleteExpired", testTokenRevocationDeleteExpired},
}

// MustRevokeToken revokes a random jti of a new application in accountID, revoked at
// T0 and expiring an hour later; opts change it before the insert. It returns the
// revocation as stored, with its Seq.
func MustRevokeToken(tb testing.TB, s skygate.Store, accountID string, opts ...func(*skygate.TokenRevocation)) *skygate.TokenRevocation {
	tb.Helper()
	r := &skygate.TokenRevocation{
		JTI: "jti-" + NewID(), AccountID: accountID, ClientID: "client-" + NewID(),
		RevokedAt: T0, ExpiresAt: T0.Add(time.Hour),
	}
	for _, o := range opts {
		o(r)
	}
	MustNoError(tb, s.RevokeToken(tb.Context(), r), "RevokeToken")
	got, err := s.TokenRevocation(tb.Context(), r.AccountID, r.JTI)
	MustNoError(tb, err, "TokenRevocation")
	return got
}

func testTokenRevocationRevokeAndRead(t *testing.T, s skygate.Store) {
	a := MustCreateAccount(t, s)
	want := &skygate.TokenRevocation{JTI: "jti-" + NewID(), AccountID: a.ID, ClientID: "client-1",
		RevokedAt: At(time.Second), ExpiresAt: At(time.Hour)}
	MustNoError(t, s.RevokeToken(t.Context(), want), "RevokeToken")
	got, err := s.TokenRevocation(t.Context(), a.ID, want.JTI)
	MustNoError(t, err, "TokenRevocation")
	if got.Seq <= 0 {
		t.Errorf("Seq = %d, want > 0", got.Seq)
	}
	want.Seq = got.Seq
	want.RevokedAt, want.ExpiresAt = Stored(want.RevokedAt), Stored(want.ExpiresAt)
	wantEqual(t, "revocation", got, want)
	wantUTC(t, "revocation", got.RevokedAt, got.ExpiresAt)
	_, err = s.TokenRevocation(t.Context(), a.ID, "jti-unknown")
	WantCode(t, err, skygate.CodeNotFound)
}

func testTokenRevocationIdempotent(t *testing.T, s skygate.Store) {
	a := MustCreateAccount(t, s)
	first := MustRevokeToken(t, s, a.ID)
	again := *first
	again.RevokedAt = At(time.Minute)
	MustNoError(t, s.RevokeToken(t.Context(), &again), "RevokeToken again")
	got, err := s.TokenRevocation(t.Context(), a.ID, first.JTI)
	MustNoError(t, err, "TokenRevocation")
	wantEqual(t, "revocation after a second revoke", got, first)
	all, err := s.TokenRevocationsAfter(t.Context(), 0, T0, 100)
	MustNoError(t, err, "TokenRevocationsAfter")
	if len(all) != 1 {
		t.Errorf("%d revocations, want 1", len(all))
	}
}

func testTokenRevocationsAfter(t *testing.T, s skygate.Store) {
	a, b := MustCreateAccount(t, s), MustCreateAccount(t, s)
	r1 := MustRevokeToken(t, s, a.ID)
	r2 := MustRevokeToken(t, s, b.ID)
	expired := MustRevokeToken(t, s, a.ID, func(r *skygate.TokenRevocation) { r.ExpiresAt = At(time.Minute) })
	r3 := MustRevokeToken(t, s, a.ID)
	if !(r1.Seq < r2.Seq && r2.Seq < expired.Seq && expired.Seq < r3.Seq) {
		t.Fatalf("seqs %d %d %d %d do not grow", r1.Seq, r2.Seq, expired.Seq, r3.Seq)
	}
	now := At(2 * time.Minute)
	all, err := s.TokenRevocationsAfter(t.Context(), 0, now, 100)
	MustNoError(t, err, "TokenRevocationsAfter 0")
	wantEqual(t, "every account's live revocations", all, []*skygate.TokenRevocation{r1, r2, r3})
	after, err := s.TokenRevocationsAfter(t.Context(), r2.Seq, now, 100)
	MustNoError(t, err, "TokenRevocationsAfter r2")
	wantEqual(t, "revocations after r2", after, []*skygate.TokenRevocation{r3})
	first, err := s.TokenRevocationsAfter(t.Context(), 0, now, 1)
	MustNoError(t, err, "TokenRevocationsAfter limit 1")
	wantEqual(t, "first revocation", first, []*skygate.TokenRevocation{r1})
	none, err := s.TokenRevocationsAfter(t.Context(), r3.Seq, now, 100)
	MustNoError(t, err, "TokenRevocationsAfter r3")
	if none == nil || len(none) != 0 {
		t.Errorf("after the last: %v, want an empty list", none)
	}
}

// testTokenRevocationOtherAccount: a revocation is found only in its own account.
func testTokenRevocationOtherAccount(t *testing.T, s skygate.Store) {
	a, b := MustCreateAccount(t, s), MustCreateAccount(t, s)
	r := MustRevokeToken(t, s, a.ID)
	_, err := s.TokenRevocation(t.Context(), b.ID, r.JTI)
	WantCode(t, err, skygate.CodeNotFound)
}

func testTokenRevocationUnknownAccount(t *testing.T, s skygate.Store) {
	err := s.RevokeToken(t.Context(), &skygate.TokenRevocation{JTI: "jti-x", AccountID: "no-such-account",
		ClientID: "c", RevokedAt: T0, ExpiresAt: At(time.Hour)})
	WantCode(t, err, skygate.CodeNotFound)
}

func testTokenRevocationDeleteExpired(t *testing.T, s skygate.Store) {
	a := MustCreateAccount(t, s)
	old := MustRevokeToken(t, s, a.ID, func(r *skygate.TokenRevocation) { r.ExpiresAt = At(time.Minute) })
	live := MustRevokeToken(t, s, a.ID)
	n, err := s.DeleteExpiredTokenRevocations(t.Context(), At(2*time.Minute))
	MustNoError(t, err, "DeleteExpiredTokenRevocations")
	if n != 1 {
		t.Errorf("deleted %d, want 1", n)
	}
	_, err = s.TokenRevocation(t.Context(), a.ID, old.JTI)
	WantCode(t, err, skygate.CodeNotFound)
	_, err = s.TokenRevocation(t.Context(), a.ID, live.JTI)
	MustNoError(t, err, "TokenRevocation of the live one")
}
