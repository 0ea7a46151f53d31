package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// The sweeps of due eSIMs (ExpireESIMs, WarnExpiringESIMs) against an eSIM whose
// change fails: it must not stall the eSIMs due after it.

// failFor returns apply, except that it refuses the eSIM iccid.
func failFor(iccid string, apply skygate.ESIMApply) skygate.ESIMApply {
	return func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if before.ICCID == iccid {
			return nil, skygate.Errorf(skygate.CodeConflict, "refused")
		}
		return apply(before, after)
	}
}

// setupSweep activates three eSIMs, the first an hour before the others so that it
// is due first, and returns their ICCIDs.
func setupSweep(t *testing.T, s skygate.Store) (esimSetup, []string) {
	t.Helper()
	st := setupESIMs(t, s, 3)
	ids := st.order.ICCIDs()
	MustActivate(t, s, st.acc.ID, ids[0], At(0))
	MustActivate(t, s, st.acc.ID, ids[1], At(time.Hour))
	MustActivate(t, s, st.acc.ID, ids[2], At(time.Hour))
	return st, ids
}

// wantSkipped checks that err names the failed eSIM alone and carries its code.
func wantSkipped(t *testing.T, err error, failed string, others []string) {
	t.Helper()
	WantCode(t, err, skygate.CodeConflict)
	if !strings.Contains(err.Error(), failed) {
		t.Errorf("error %q does not name the failed eSIM %s", err, failed)
	}
	for _, id := range others {
		if strings.Contains(err.Error(), id) {
			t.Errorf("error %q names %s, which did not fail", err, id)
		}
	}
}

func testWarnExpiringSkipsFailure(t *testing.T, s skygate.Store) {
	st, ids := setupSweep(t, s)
	now := At(6*24*time.Hour + 2*time.Hour) // every 1-day warning is due
	n, err := s.WarnExpiringESIMs(t.Context(), now, 0, failFor(ids[0], warnApply(now)))
	wantSkipped(t, err, ids[0], ids[1:])
	wantEqual(t, "warned past the failure", n, 2)
	wantEqual(t, "events", expiringEvents(t, s, st.acc.ID), map[string]int{ids[1] + "/1": 1, ids[2] + "/1": 1})
	wantEqual(t, "failed eSIM's warning", MustESIM(t, s, st.acc.ID, ids[0]).ExpiryWarned, 0)
	// The next call tries it again.
	n, err = s.WarnExpiringESIMs(t.Context(), now, 0, warnApply(now))
	MustNoError(t, err, "WarnExpiringESIMs")
	wantEqual(t, "warned on the next call", n, 1)
	wantEqual(t, "failed eSIM's warning after", MustESIM(t, s, st.acc.ID, ids[0]).ExpiryWarned, 1)
}

func testExpireSkipsFailure(t *testing.T, s skygate.Store) {
	st, ids := setupSweep(t, s)
	now := At(8 * 24 * time.Hour) // every one has expired
	expire := func(before, after *skygate.ESIM) ([]*skygate.Event, error) {
		if err := after.Expire(now); err != nil {
			return nil, err
		}
		return skygate.ESIMEvents(before, after, now)
	}
	n, err := s.ExpireESIMs(t.Context(), now, 0, failFor(ids[0], expire))
	wantSkipped(t, err, ids[0], ids[1:])
	wantEqual(t, "expired past the failure", n, 2)
	for i, want := range []skygate.ESIMStatus{skygate.ESIMActive, skygate.ESIMExpired, skygate.ESIMExpired} {
		wantEqual(t, "status of "+ids[i], MustESIM(t, s, st.acc.ID, ids[i]).Status, want)
	}
	n, err = s.ExpireESIMs(t.Context(), now, 0, expire)
	MustNoError(t, err, "ExpireESIMs")
	wantEqual(t, "expired on the next call", n, 1)
}
