package catalog_test

import (
	"testing"

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
