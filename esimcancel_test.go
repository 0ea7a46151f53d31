package skygate_test

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// TestESIMCancel covers ESIM.Cancel: only an Assigned eSIM whose profile is Released
// can be canceled, strictly before the end of the refund window it was sold with
// (RefundUntil, here window days after the order; none for 0); a Canceled eSIM stays
// as it is.
func TestESIMCancel(t *testing.T) {
	t.Parallel()
	ordered := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	end := ordered.AddDate(0, 0, 30)
	canceledAt := ordered.Add(time.Hour)
	tests := []struct {
		name    string
		status  skygate.ESIMStatus
		profile skygate.ProfileState
		now     time.Time
		window  int
		code    string // "" for success
	}{
		{"Assigned Released", skygate.ESIMAssigned, skygate.ProfileReleased, ordered.Add(time.Hour), 30, ""},
		{"at order time", skygate.ESIMAssigned, skygate.ProfileReleased, ordered, 30, ""},
		{"last microsecond of the window", skygate.ESIMAssigned, skygate.ProfileReleased, end.Add(-time.Microsecond), 30, ""},
		{"window end is excluded", skygate.ESIMAssigned, skygate.ProfileReleased, end, 30, skygate.CodeRefundWindowClosed},
		{"after the window", skygate.ESIMAssigned, skygate.ProfileReleased, end.Add(time.Hour), 30, skygate.CodeRefundWindowClosed},
		{"one-day window", skygate.ESIMAssigned, skygate.ProfileReleased, ordered.Add(23 * time.Hour), 1, ""},
		{"no refunds", skygate.ESIMAssigned, skygate.ProfileReleased, ordered, 0, skygate.CodeRefundWindowClosed},
		{"Downloaded", skygate.ESIMAssigned, skygate.ProfileDownloaded, ordered, 30, skygate.CodeInvalidESIMStatus},
		{"Deleted before install", skygate.ESIMAssigned, skygate.ProfileDeleted, ordered, 30, skygate.CodeInvalidESIMStatus},
		{"Installed", skygate.ESIMInstalled, skygate.ProfileInstalled, ordered, 30, skygate.CodeInvalidESIMStatus},
		{"Active", skygate.ESIMActive, skygate.ProfileEnabled, ordered, 30, skygate.CodeInvalidESIMStatus},
		{"Depleted", skygate.ESIMDepleted, skygate.ProfileEnabled, ordered, 30, skygate.CodeInvalidESIMStatus},
		{"Expired", skygate.ESIMExpired, skygate.ProfileDisabled, ordered, 30, skygate.CodeInvalidESIMStatus},
		{"status before window", skygate.ESIMInstalled, skygate.ProfileInstalled, end.Add(time.Hour), 30, skygate.CodeInvalidESIMStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newESIM(ptr(1000))
			e.Status, e.ProfileState, e.CreatedAt = tt.status, tt.profile, ordered
			e.RefundUntil = skygate.RefundableUntil(ordered, tt.window)
			before := e.Clone()
			err := e.Cancel(tt.now)
			if tt.code != "" {
				if !skygate.IsCode(err, tt.code) {
					t.Fatalf("Cancel: %v, want %s", err, tt.code)
				}
				if e.Status != before.Status || e.CanceledAt != nil {
					t.Fatalf("a refused cancel changed the eSIM: %s, %v", e.Status, e.CanceledAt)
				}
				return
			}
			if err != nil {
				t.Fatalf("Cancel: %v", err)
			}
			if e.Status != skygate.ESIMCanceled || e.CanceledAt == nil || !e.CanceledAt.Equal(tt.now) || e.ProfileState != skygate.ProfileReleased {
				t.Fatalf("after Cancel: %s %v %s", e.Status, e.CanceledAt, e.ProfileState)
			}
			events, err := skygate.ESIMEvents(before, e, tt.now)
			if err != nil || len(events) != 1 || events[0].Type != skygate.EventESIMStatusChanged {
				t.Fatalf("events: %v %v", events, err)
			}
		})
	}

	t.Run("repeat", func(t *testing.T) {
		t.Parallel()
		e := newESIM(ptr(1000))
		e.ProfileState, e.CreatedAt, e.RefundUntil = skygate.ProfileReleased, ordered, &end
		if err := e.Cancel(canceledAt); err != nil {
			t.Fatal(err)
		}
		before := e.Clone()
		// Long after the window, with no window at all: a Canceled eSIM answers nil.
		for _, until := range []*time.Time{&end, nil} {
			e.RefundUntil = until
			if err := e.Cancel(end.AddDate(1, 0, 0)); err != nil {
				t.Fatalf("repeat (refund until %v): %v", until, err)
			}
		}
		if !e.CanceledAt.Equal(canceledAt) || e.Status != skygate.ESIMCanceled {
			t.Fatalf("repeat changed the eSIM: %s %v", e.Status, e.CanceledAt)
		}
		if events, _ := skygate.ESIMEvents(before, e, end); len(events) != 0 {
			t.Fatalf("repeat events: %v", events)
		}
		// Nothing leaves Canceled, and every refused change is InvalidESIMStatus.
		topUp := &skygate.ESIMPackage{DataMB: ptr(100), ValidityDays: 1, TopUp: true, Active: true}
		for name, change := range map[string]func() error{
			"Install":         func() error { return e.Install(end) },
			"Activate":        func() error { return e.Activate(end) },
			"ReportUsage":     func() error { return e.ReportUsage(10, skygate.DefaultUsageThresholds) },
			"ApplyTopUp":      func() error { return e.ApplyTopUp(topUp, end) },
			"SetProfileState": func() error { return e.SetProfileState(skygate.ProfileDownloaded, end) },
		} {
			if err := change(); !skygate.IsCode(err, skygate.CodeInvalidESIMStatus) {
				t.Errorf("%s of a Canceled eSIM: %v, want %s", name, err, skygate.CodeInvalidESIMStatus)
			}
		}
		if events, _ := skygate.ESIMEvents(before, e, end); len(events) != 0 || e.Status != skygate.ESIMCanceled {
			t.Fatalf("refused changes changed the eSIM: %s %v", e.Status, events)
		}
	})
}

// TestRefundableUntil: the window ends window days after the order; none without one.
func TestRefundableUntil(t *testing.T) {
	t.Parallel()
	ordered := time.Date(2025, 1, 31, 8, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		window int
		want   *time.Time
	}{
		{30, new(time.Date(2025, 3, 2, 8, 0, 0, 0, time.UTC))},
		{1, new(time.Date(2025, 2, 1, 8, 0, 0, 0, time.UTC))},
		{0, nil},
		{-1, nil},
	} {
		got := skygate.RefundableUntil(ordered, tt.window)
		if (got == nil) != (tt.want == nil) || (got != nil && !got.Equal(*tt.want)) {
			t.Errorf("RefundableUntil(%d) = %v, want %v", tt.window, got, tt.want)
		}
	}
}
