package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// esimWarningTests cover the ESIMSettingsStore and the ESIMWarningStore.
var esimWarningTests = []test{
	{"SettingsRoundTrip", testESIMSettings},
	{"WarnExpiringOncePerWarning", testWarnExpiringConcurrent},
	{"WarnExpiringRefusals", testWarnExpiringRefusals},
	{"WarnExpiringAfterTopUp", testWarnExpiringAfterTopUp},
	{"WarnExpiringSkipsFailure", testWarnExpiringSkipsFailure},
}

func testESIMSettings(t *testing.T, s skygate.Store) {
	a, b := MustCreateAccount(t, s), MustCreateAccount(t, s)
	get := func(acc *skygate.Account) []int {
		t.Helper()
		set, err := s.ESIMSettings(t.Context(), acc.ID)
		MustNoError(t, err, "ESIMSettings")
		return set.UsageThresholds
	}
	wantEqual(t, "default", get(a), []int{80, 100})
	for _, want := range [][]int{{50, 80, 100}, {10}, {}} {
		set, err := s.SetESIMSettings(t.Context(), a.ID, &skygate.ESIMSettings{UsageThresholds: want}, At(time.Hour))
		MustNoError(t, err, "SetESIMSettings")
		wantEqual(t, "stored", set.UsageThresholds, want)
		wantEqual(t, "read back", get(a), want)
	}
	// The settings are the account's alone.
	wantEqual(t, "another account", get(b), []int{80, 100})
	_, err := s.SetESIMSettings(t.Context(), NewID(), &skygate.ESIMSettings{UsageThresholds: []int{50}}, At(time.Hour))
	WantCode(t, err, skygate.CodeNotFound)
	// The default is a copy: changing what one read returned changes no later read.
	set, err := s.ESIMSettings(t.Context(), b.ID)
	MustNoError(t, err, "ESIMSettings")
	set.UsageThresholds[0] = 1
	wantEqual(t, "default after a caller changed its copy", get(b), []int{80, 100})
}

// warnApply is the service's ESIMApply of the expiry warnings at now.
func warnApply(now time.Time) skygate.ESIMApply {
	return func(_, after *skygate.ESIM) ([]*skygate.Event, error) {
		days, ok := after.DueExpiryWarning(now)
		if !ok {
			return nil, skygate.Errorf(skygate.CodeConflict, "no warning due")
		}
		after.WarnExpiry(days)
		ev, err := skygate.ESIMExpiringEvent(after, days, now)
		return []*skygate.Event{ev}, err
	}
}

// expiringEvents counts the store's esim.expiring events by ICCID and days.
func expiringEvents(t *testing.T, s skygate.Store, accountID string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, ev := range MustAccountEvents(t, s, accountID) {
		if ev.Type != skygate.EventESIMExpiring {
			continue
		}
		var d skygate.ESIMExpiringData
		MustNoError(t, json.Unmarshal(ev.Data, &d), "esim.expiring data")
		out[fmt.Sprintf("%s/%d", d.ICCID, d.DaysLeft)]++
	}
	return out
}

// warnConcurrently runs n callers of WarnExpiringESIMs at now and returns how many
// eSIMs they warned together.
func warnConcurrently(t *testing.T, s skygate.Store, n int, now time.Time) int {
	t.Helper()
	counts := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { counts[i], errs[i] = s.WarnExpiringESIMs(t.Context(), now, 0, warnApply(now)) })
	}
	wg.Wait()
	total := 0
	for i := range n {
		MustNoError(t, errs[i], "WarnExpiringESIMs")
		total += counts[i]
	}
	return total
}

func testWarnExpiringConcurrent(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 4)
	ids := st.order.ICCIDs()
	day := 24 * time.Hour
	MustActivate(t, s, st.acc.ID, ids[0], At(0))   // expires at T0+7d
	MustActivate(t, s, st.acc.ID, ids[1], At(0))   // depleted below, expires at T0+7d
	MustActivate(t, s, st.acc.ID, ids[2], At(day)) // expires at T0+8d
	_, err := s.UpdateESIM(t.Context(), st.acc.ID, ids[1], At(time.Hour), usageApply(5000, At(time.Hour)))
	MustNoError(t, err, "deplete")
	// ids[3] is never activated: no expiry, no warning.

	want := map[string]int{}
	for _, step := range []struct {
		at     time.Time
		warned int
		due    []string // ICCID/days warned at this step
	}{
		{At(4*day - time.Microsecond), 0, nil},
		{At(4 * day), 2, []string{ids[0] + "/3", ids[1] + "/3"}},
		{At(4*day + time.Hour), 0, nil},
		{At(6*day + time.Hour), 3, []string{ids[0] + "/1", ids[1] + "/1", ids[2] + "/3"}},
		{At(7*day + time.Hour), 1, []string{ids[2] + "/1"}}, // ids[0] and [1] are past expiry
		{At(7*day + 2*time.Hour), 0, nil},
	} {
		got := warnConcurrently(t, s, 8, step.at)
		wantEqual(t, fmt.Sprintf("warned at %v", step.at.Sub(T0)), got, step.warned)
		for _, k := range step.due {
			want[k] = 1
		}
		wantEqual(t, fmt.Sprintf("esim.expiring events after %v", step.at.Sub(T0)), expiringEvents(t, s, st.acc.ID), want)
	}
	e := MustESIM(t, s, st.acc.ID, ids[2])
	wantEqual(t, "expiry_warned read back", e.ExpiryWarned, 1)
	wantEqual(t, "status unchanged", e.Status, skygate.ESIMActive)
}

func testWarnExpiringRefusals(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 3)
	ids := st.order.ICCIDs()
	for _, id := range ids {
		MustActivate(t, s, st.acc.ID, id, At(0))
	}
	now := At(6*24*time.Hour + time.Hour)
	// An apply that records no warning fails each eSIM instead of claiming it
	// forever, and writes nothing.
	_, err := s.WarnExpiringESIMs(t.Context(), now, 0, func(_, _ *skygate.ESIM) ([]*skygate.Event, error) { return nil, nil })
	if err == nil {
		t.Fatal("WarnExpiringESIMs with an apply that warns nothing succeeded")
	}
	_, err = s.WarnExpiringESIMs(t.Context(), now, 0, func(_, _ *skygate.ESIM) ([]*skygate.Event, error) {
		return nil, skygate.Errorf(skygate.CodeConflict, "refused")
	})
	WantCode(t, err, skygate.CodeConflict)
	wantEqual(t, "events after refusals", len(expiringEvents(t, s, st.acc.ID)), 0)
	// A limit stops after that many.
	n, err := s.WarnExpiringESIMs(t.Context(), now, 2, warnApply(now))
	MustNoError(t, err, "WarnExpiringESIMs with a limit")
	wantEqual(t, "warned with limit 2", n, 2)
	n, err = s.WarnExpiringESIMs(t.Context(), now, 0, warnApply(now))
	MustNoError(t, err, "WarnExpiringESIMs")
	wantEqual(t, "warned the rest", n, 1)
}

// testWarnExpiringAfterTopUp: a top-up that moves expires_at starts a new period,
// whose warnings are sent again.
func testWarnExpiringAfterTopUp(t *testing.T, s skygate.Store) {
	st := setupESIMs(t, s, 1)
	iccid := st.order.ESIMs[0].ICCID
	day := 24 * time.Hour
	MustActivate(t, s, st.acc.ID, iccid, At(0)) // expires at T0+7d
	now := At(6*day + time.Hour)
	wantEqual(t, "1-day warning", warnConcurrently(t, s, 2, now), 1)

	topPkg := MustESIMPackage(t, s, st.acc.ID, WithPrice(100, "USD"), AsTopUp) // +7 days
	tu := newTopUp(st.acc.ID, iccid, topPkg, now)
	_, err := s.TopUpESIM(t.Context(), NewESIMRecord(st.acc.ID, skygate.OperationESIMTopUp, "t1", tu.ID, "fp", now), tu, topUpApply(topPkg, now))
	MustNoError(t, err, "TopUpESIM")
	wantEqual(t, "warned after top-up", tu.ESIM.ExpiryWarned, 0)
	wantEqual(t, "nothing due right after", warnConcurrently(t, s, 2, now), 0)
	// Expires at T0+14d now: 3 days before, then 1 day before.
	wantEqual(t, "new 3-day warning", warnConcurrently(t, s, 2, At(11*day)), 1)
	wantEqual(t, "new 1-day warning", warnConcurrently(t, s, 2, At(13*day)), 1)
	wantEqual(t, "events", expiringEvents(t, s, st.acc.ID), map[string]int{iccid + "/1": 2, iccid + "/3": 1})
}
