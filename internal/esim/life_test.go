package esim_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/storetest"
)

// expiringDays returns days_left of the account's esim.expiring events, oldest first.
func expiringDays(tb testing.TB, s store, accountID string) []int {
	tb.Helper()
	var out []int
	for _, ev := range storetest.MustAccountEvents(tb, s, accountID) {
		if ev.Type != skygate.EventESIMExpiring {
			continue
		}
		var d skygate.ESIMExpiringData
		storetest.MustNoError(tb, json.Unmarshal(ev.Data, &d), "decode")
		out = append(out, d.DaysLeft)
	}
	return out
}

func TestWarnExpiring(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 1, 500)
		iccid := MustOrder(t, b, b.pkg, 1).ESIMs[0].ICCID
		ctx := t.Context()
		for _, step := range []func() (*skygate.ESIM, error){
			func() (*skygate.ESIM, error) { return b.svc.Install(ctx, b.acc.ID, iccid, "en") },
			func() (*skygate.ESIM, error) { return b.svc.Activate(ctx, b.acc.ID, iccid, "en") },
		} {
			_, err := step()
			storetest.MustNoError(t, err, "install and activate")
		}
		day := 24 * time.Hour
		for _, st := range []struct {
			advance time.Duration
			warned  int
			days    []int
		}{
			{0, 0, nil},               // 7 days left
			{4 * day, 1, []int{3}},    // 3 days left
			{time.Hour, 0, []int{3}},  // sent already
			{2 * day, 1, []int{3, 1}}, // 1 day less an hour left
			{2 * day, 0, []int{3, 1}}, // past expiry: no warning
			{0, 0, []int{3, 1}},       // and still none
		} {
			b.clock.Advance(st.advance)
			n, err := b.svc.WarnExpiring(ctx, 0)
			storetest.MustNoError(t, err, "WarnExpiring")
			if got := expiringDays(t, s, b.acc.ID); n != st.warned || !slices.Equal(got, st.days) {
				t.Fatalf("at %v: warned %d, events %v; want %d, %v", b.clock.Now().Sub(storetest.T0), n, got, st.warned, st.days)
			}
		}
	})
}

// TestWarnExpiringAfterALateActivation sweeps with a clock behind the activation of a
// day pass, as a replica whose sweep read the clock just before another replica
// activated it: the warning is the 1-day one, judged as of the activation.
func TestWarnExpiringAfterALateActivation(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 1, 500)
		day := storetest.MustESIMPackage(t, s, b.acc.ID, storetest.WithPrice(0, "USD"),
			func(p *skygate.ESIMPackage) { p.ValidityDays = 1 })
		iccid := MustOrder(t, b, day, 1).ESIMs[0].ICCID
		ctx := t.Context()
		_, err := b.svc.Install(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Install")
		_, err = b.svc.Activate(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Activate")
		b.clock.Advance(-time.Second)
		n, err := b.svc.WarnExpiring(ctx, 0)
		storetest.MustNoError(t, err, "WarnExpiring")
		if got := expiringDays(t, s, b.acc.ID); n != 1 || !slices.Equal(got, []int{1}) {
			t.Fatalf("warned %d, days %v; want 1, [1]", n, got)
		}
	})
}

func TestSetProfileStateService(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 1, 500)
		iccid := MustOrder(t, b, b.pkg, 1).ESIMs[0].ICCID
		ctx := t.Context()
		// An unknown state is 422 at state for any ICCID, before the eSIM is read.
		for _, id := range []string{iccid, storetest.NewICCID(), "not-an-iccid"} {
			_, err := b.svc.SetProfileState(ctx, b.acc.ID, id, "en", "Exploded")
			storetest.WantCode(t, err, skygate.CodeValidation)
		}
		_, err := b.svc.SetProfileState(ctx, b.acc.ID, storetest.NewICCID(), "en", skygate.ProfileInstalled)
		storetest.WantCode(t, err, skygate.CodeNotFound)
		e, err := b.svc.SetProfileState(ctx, b.acc.ID, iccid, "en", skygate.ProfileEnabled)
		storetest.MustNoError(t, err, "SetProfileState")
		if e.Status != skygate.ESIMInstalled || e.ProfileState != skygate.ProfileEnabled || e.ActivationCode == "" {
			t.Fatalf("after Enabled: %s, %s, code %q", e.Status, e.ProfileState, e.ActivationCode)
		}
		_, err = b.svc.SetProfileState(ctx, b.acc.ID, iccid, "en", skygate.ProfileEnabled)
		storetest.MustNoError(t, err, "SetProfileState again")
		_, err = b.svc.SetProfileState(ctx, b.acc.ID, iccid, "en", skygate.ProfileDownloaded)
		storetest.WantCode(t, err, skygate.CodeInvalidESIMStatus)
		want := []string{skygate.EventESIMOrderCompleted, skygate.EventESIMProfileChanged, skygate.EventESIMStatusChanged}
		if got := eventTypes(t, s, b.acc.ID); !slices.Equal(got, want) {
			t.Errorf("events %v, want %v", got, want)
		}
	})
}

func TestReportUsageUsesTheAccountsThresholds(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 1, 500)
		iccid := MustOrder(t, b, b.pkg, 1).ESIMs[0].ICCID
		ctx := t.Context()
		_, err := b.svc.SetESIMSettings(ctx, b.acc.ID, &skygate.ESIMSettings{UsageThresholds: []int{50, 101}})
		storetest.WantCode(t, err, skygate.CodeValidation)
		set, err := b.svc.SetESIMSettings(ctx, b.acc.ID, &skygate.ESIMSettings{UsageThresholds: []int{10, 50}})
		storetest.MustNoError(t, err, "SetESIMSettings")
		if !slices.Equal(set.UsageThresholds, []int{10, 50}) {
			t.Fatalf("stored %v", set.UsageThresholds)
		}
		_, err = b.svc.Install(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Install")
		_, err = b.svc.Activate(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Activate")
		for _, used := range []int{200, 600, 900} { // 1024 MB: 19 %, 58 %, 87 %
			_, err := b.svc.ReportUsage(ctx, b.acc.ID, iccid, "en", used)
			storetest.MustNoError(t, err, "ReportUsage")
		}
		var got []int
		for _, ev := range storetest.MustAccountEvents(t, s, b.acc.ID) {
			if ev.Type == skygate.EventESIMUsageThreshold {
				var d skygate.ESIMUsageThresholdData
				storetest.MustNoError(t, json.Unmarshal(ev.Data, &d), "decode")
				got = append(got, d.Threshold)
			}
		}
		if !slices.Equal(got, []int{10, 50}) {
			t.Errorf("thresholds sent %v, want [10 50] (80 is not the account's)", got)
		}
	})
}
