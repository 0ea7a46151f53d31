package catalog_test

import (
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

func TestServiceFastTrackInfo(t *testing.T) {
	t.Parallel()
	svc := setup(t).svc
	if _, _, ok := svc.FastTrackInfo("x"); ok {
		t.Fatal("info before Open")
	}
	if err := svc.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	data, err := catalog.Decode(catalog.Seed())
	if err != nil {
		t.Fatal(err)
	}
	ft := data.FastTracks[0]
	info, active, ok := svc.FastTrackInfo(ft.ID)
	if !ok || active != ft.IsActive || len(info) != len(ft.RequiredBookingInfo) || info[0] != string(ft.RequiredBookingInfo[0]) {
		t.Errorf("FastTrackInfo = %v %v %v", info, active, ok)
	}
	loc, ok := svc.FastTrackZone(ft.ID)
	var hub skygate.HubRecord
	for _, h := range data.Hubs {
		if h.ID == ft.HubID {
			hub = h
		}
	}
	if !ok || loc.String() != hub.Timezone {
		t.Errorf("FastTrackZone = %v %v, want %s", loc, ok, hub.Timezone)
	}
	if _, _, ok := svc.FastTrackInfo("00000000-0000-0000-0000-000000000000"); ok {
		t.Error("unknown id found")
	}
}

func TestServiceFastTrackCommerce(t *testing.T) {
	t.Parallel()
	svc := setup(t).svc
	if _, ok := svc.FastTrackCapacity("x"); ok {
		t.Fatal("capacity before Open")
	}
	if err := svc.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	const navoi = "3418e602-818c-5401-82a4-13d7185c8b85" // closed on Tuesdays, else 06:00-21:00
	if c, ok := svc.FastTrackCapacity(navoi); !ok || c != 20 {
		t.Errorf("FastTrackCapacity = %d %v, want 20", c, ok)
	}
	tests := []struct {
		day  time.Weekday
		want [][2]int
	}{
		{time.Monday, [][2]int{{360, 1260}}},
		{time.Tuesday, nil},
		{time.Sunday, [][2]int{{360, 1260}}},
	}
	for _, tt := range tests {
		got, ok := svc.FastTrackOpenHours(navoi, tt.day)
		if !ok || !slices.Equal(got, tt.want) {
			t.Errorf("FastTrackOpenHours(%s) = %v %v, want %v", tt.day, got, ok, tt.want)
		}
	}
	rules, ok := svc.FastTrackCancellation(navoi)
	want := []skygate.CancellationRule{{HoursBefore: 24, RefundPercent: 100}, {HoursBefore: 2, RefundPercent: 50}}
	if !ok || !slices.Equal(rules, want) {
		t.Errorf("FastTrackCancellation = %v %v, want %v", rules, ok, want)
	}
	for _, get := range []func() bool{
		func() bool { _, ok := svc.FastTrackCapacity(unknownID); return ok },
		func() bool { _, ok := svc.FastTrackOpenHours(unknownID, time.Monday); return ok },
		func() bool { _, ok := svc.FastTrackCancellation(unknownID); return ok },
	} {
		if get() {
			t.Error("unknown id found")
		}
	}
}

const unknownID = "00000000-0000-0000-0000-000000000000"

func TestSeedFastTracksAreSellable(t *testing.T) {
	t.Parallel()
	data, err := catalog.Decode(catalog.Seed())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range data.FastTracks {
		if f.CapacityPerSlot < 20 || f.CapacityPerSlot > 120 || len(f.Policy.Cancellation) != 2 {
			t.Errorf("%s: capacity %d, cancellation %v", f.ID, f.CapacityPerSlot, f.Policy.Cancellation)
		}
	}
}
