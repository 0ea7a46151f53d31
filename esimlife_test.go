package skygate_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// profileMoves is the profile machine of SGP.22 as the contract states it, written
// out here so that the test does not read the table it checks.
var profileMoves = map[[2]skygate.ProfileState]bool{
	{skygate.ProfileReleased, skygate.ProfileDownloaded}:  true,
	{skygate.ProfileReleased, skygate.ProfileInstalled}:   true,
	{skygate.ProfileReleased, skygate.ProfileEnabled}:     true,
	{skygate.ProfileDownloaded, skygate.ProfileInstalled}: true,
	{skygate.ProfileDownloaded, skygate.ProfileEnabled}:   true,
	{skygate.ProfileDownloaded, skygate.ProfileDeleted}:   true,
	{skygate.ProfileInstalled, skygate.ProfileEnabled}:    true,
	{skygate.ProfileInstalled, skygate.ProfileDisabled}:   true,
	{skygate.ProfileInstalled, skygate.ProfileDeleted}:    true,
	{skygate.ProfileEnabled, skygate.ProfileDisabled}:     true,
	{skygate.ProfileEnabled, skygate.ProfileDeleted}:      true,
	{skygate.ProfileDisabled, skygate.ProfileEnabled}:     true,
	{skygate.ProfileDisabled, skygate.ProfileDeleted}:     true,
}

// TestSetProfileState tries every pair of states on an Assigned eSIM, and every
// state on a Canceled one.
func TestSetProfileState(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	onDevice := func(p skygate.ProfileState) bool {
		return p == skygate.ProfileInstalled || p == skygate.ProfileEnabled || p == skygate.ProfileDisabled
	}
	for _, from := range skygate.ProfileStates {
		for _, to := range skygate.ProfileStates {
			t.Run(string(from)+"→"+string(to), func(t *testing.T) {
				t.Parallel()
				e := newESIM(ptr(1000))
				e.ProfileState = from
				err := e.SetProfileState(to, now)
				switch {
				case from == to:
					if err != nil || e.ProfileState != from || e.Status != skygate.ESIMAssigned {
						t.Errorf("the same state: %v, %s, %s", err, e.ProfileState, e.Status)
					}
				case profileMoves[[2]skygate.ProfileState{from, to}]:
					if err != nil || e.ProfileState != to {
						t.Fatalf("allowed move: %v, %s", err, e.ProfileState)
					}
					// A profile that reaches the device installs the Assigned eSIM; one
					// deleted after its download never got there.
					wantInstalled := onDevice(to)
					if got := e.Status == skygate.ESIMInstalled; got != wantInstalled {
						t.Errorf("status %s, want installed %v", e.Status, wantInstalled)
					}
					if wantInstalled && (e.InstalledAt == nil || !e.InstalledAt.Equal(now)) {
						t.Errorf("installed_at %v", e.InstalledAt)
					}
				default:
					if !skygate.IsCode(err, skygate.CodeInvalidESIMStatus) || e.ProfileState != from || e.Status != skygate.ESIMAssigned {
						t.Errorf("refused move: %v, %s, %s", err, e.ProfileState, e.Status)
					}
				}
			})
		}
	}
	for _, to := range skygate.ProfileStates {
		e := newESIM(ptr(1000))
		e.Status, e.ProfileState = skygate.ESIMCanceled, skygate.ProfileReleased
		if err := e.SetProfileState(to, now); !skygate.IsCode(err, skygate.CodeInvalidESIMStatus) || e.ProfileState != skygate.ProfileReleased {
			t.Errorf("Canceled eSIM → %s: %v, %s", to, err, e.ProfileState)
		}
	}
	e := newESIM(ptr(1000))
	e.ProfileState = skygate.ProfileReleased
	if err := e.SetProfileState("Exploded", now); !skygate.IsCode(err, skygate.CodeValidation) {
		t.Errorf("unknown state: %v", err)
	}
	// An Installed (or further) eSIM keeps its status as its profile moves.
	e.Status, e.ProfileState = skygate.ESIMActive, skygate.ProfileEnabled
	if err := e.SetProfileState(skygate.ProfileDisabled, now); err != nil || e.Status != skygate.ESIMActive {
		t.Errorf("Active eSIM disabled: %v, %s", err, e.Status)
	}
}

func TestDueExpiryWarning(t *testing.T) {
	t.Parallel()
	expires := time.Date(2025, 5, 10, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	cases := []struct {
		name   string
		status skygate.ESIMStatus
		warned int
		now    time.Time
		days   int // 0: none due
	}{
		{"a week before", skygate.ESIMActive, 0, expires.Add(-7 * day), 0},
		{"just before 3 days", skygate.ESIMActive, 0, expires.Add(-3*day - time.Second), 0},
		{"3 days", skygate.ESIMActive, 0, expires.Add(-3 * day), 3},
		{"2 days, 3 not sent", skygate.ESIMActive, 0, expires.Add(-2 * day), 3},
		{"2 days, 3 sent", skygate.ESIMActive, 3, expires.Add(-2 * day), 0},
		{"1 day, 3 sent", skygate.ESIMActive, 3, expires.Add(-day), 1},
		{"1 day, none sent: 1 day only", skygate.ESIMActive, 0, expires.Add(-day), 1},
		{"an hour, none sent: 1 day only", skygate.ESIMActive, 0, expires.Add(-time.Hour), 1},
		{"1 day, 1 sent", skygate.ESIMActive, 1, expires.Add(-time.Hour), 0},
		{"Depleted", skygate.ESIMDepleted, 3, expires.Add(-time.Hour), 1},
		{"at expiry", skygate.ESIMActive, 0, expires, 0},
		{"after expiry", skygate.ESIMActive, 0, expires.Add(time.Hour), 0},
		{"Expired", skygate.ESIMExpired, 0, expires.Add(-time.Hour), 0},
		{"Installed", skygate.ESIMInstalled, 0, expires.Add(-time.Hour), 0},
		{"Assigned", skygate.ESIMAssigned, 0, expires.Add(-time.Hour), 0},
		{"Canceled", skygate.ESIMCanceled, 0, expires.Add(-time.Hour), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newESIM(ptr(1000))
			e.Status, e.ExpiryWarned, e.ExpiresAt = c.status, c.warned, &expires
			days, ok := e.DueExpiryWarning(c.now)
			if days != c.days || ok != (c.days != 0) {
				t.Errorf("DueExpiryWarning = %d, %v; want %d", days, ok, c.days)
			}
			if ok {
				e.WarnExpiry(days)
				if d, again := e.DueExpiryWarning(c.now); again {
					t.Errorf("after WarnExpiry(%d) the %d-day warning is due again", days, d)
				}
			}
		})
	}
	// Not activated: no expiry, no warning.
	if _, ok := newESIM(ptr(1000)).DueExpiryWarning(expires); ok {
		t.Error("an eSIM without expires_at is due")
	}
	// A top-up that moves expires_at starts a new period: both warnings come again.
	e := newESIM(ptr(1000))
	e.Status, e.ExpiresAt = skygate.ESIMActive, &expires
	now := expires.Add(-time.Hour)
	e.WarnExpiry(1)
	if err := e.ApplyTopUp(&skygate.ESIMPackage{DataMB: ptr(100), ValidityDays: 7, TopUp: true, Active: true}, now); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.DueExpiryWarning(now); ok || e.ExpiryWarned != 0 {
		t.Errorf("right after a 7-day top-up: warned %d, due %v", e.ExpiryWarned, ok)
	}
	if days, ok := e.DueExpiryWarning(e.ExpiresAt.Add(-3 * day)); !ok || days != 3 {
		t.Errorf("3 days before the new expiry: %d, %v", days, ok)
	}
}

func TestESIMSettingsValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		thresholds []int
		fields     []string
	}{
		{"default", []int{80, 100}, nil},
		{"custom", []int{50, 80, 100}, nil},
		{"one", []int{1}, nil},
		{"empty", []int{}, nil},
		{"ten", []int{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, nil},
		{"missing", nil, []string{"usage_thresholds"}},
		{"eleven", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, []string{"usage_thresholds"}},
		{"zero", []int{0}, []string{"usage_thresholds[0]"}},
		{"above 100", []int{50, 101}, []string{"usage_thresholds[1]"}},
		{"negative", []int{-5}, []string{"usage_thresholds[0]"}},
		{"descending", []int{80, 50}, []string{"usage_thresholds[1]"}},
		{"twice", []int{80, 80}, []string{"usage_thresholds[1]"}},
		{"every problem", []int{0, 101, 50}, []string{"usage_thresholds[0]", "usage_thresholds[1]", "usage_thresholds[2]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &skygate.ESIMSettings{UsageThresholds: c.thresholds}
			var fields []string
			for _, e := range s.Validate() {
				fields = append(fields, e.Field)
			}
			if !slices.Equal(fields, c.fields) {
				t.Errorf("problems at %v, want %v", fields, c.fields)
			}
		})
	}
}

// TestESIMEventsCustomThresholds: an account's own thresholds give one event each,
// lowest first, when usage reaches them, and a threshold already notified none.
func TestESIMEventsCustomThresholds(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	thresholds := []int{25, 50, 80, 100}
	e := newESIM(ptr(1000))
	e.Status = skygate.ESIMActive
	for _, st := range []struct {
		used int
		want []int
	}{
		{100, nil}, {600, []int{25, 50}}, {700, nil}, {1000, []int{80, 100}},
	} {
		before := e.Clone()
		if err := e.ReportUsage(st.used, thresholds); err != nil {
			t.Fatal(err)
		}
		events, err := skygate.ESIMEvents(before, e, now)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, ev := range events {
			if ev.Type != skygate.EventESIMUsageThreshold {
				continue
			}
			var d skygate.ESIMUsageThresholdData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			if d.ICCID != e.ICCID || ev.OrderingKey != skygate.ESIMOrderingKey(e.ICCID) {
				t.Errorf("event %s, key %s", ev.Data, ev.OrderingKey)
			}
			got = append(got, d.Threshold)
		}
		if !slices.Equal(got, st.want) {
			t.Errorf("after %d MB: thresholds %v, want %v", st.used, got, st.want)
		}
	}
	if e.Status != skygate.ESIMDepleted {
		t.Errorf("status %s at 100 %%", e.Status)
	}
	// esim.expiring carries the days and the eSIM's ordering key.
	expires := now.Add(20 * time.Hour)
	e.ExpiresAt = &expires
	ev, err := skygate.ESIMExpiringEvent(e, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	var d skygate.ESIMExpiringData
	if err := json.Unmarshal(ev.Data, &d); err != nil || ev.Type != skygate.EventESIMExpiring || d.DaysLeft != 1 ||
		!d.ExpiresAt.Equal(expires) || ev.OrderingKey != skygate.ESIMOrderingKey(e.ICCID) {
		t.Errorf("esim.expiring: %v %s %s", err, ev.Type, ev.Data)
	}
}
