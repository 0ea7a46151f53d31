package storetest

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/skygate/skygate"
)

// capacityTests cover listing the admins' capacities per slot at once, which the
// employees' fast-track list reads instead of one query per fast-track.
var capacityTests = []test{
	{"NoneSet", testCapacitiesNoneSet},
	{"EverySet", testCapacitiesEverySet},
}

func testCapacitiesNoneSet(t *testing.T, s skygate.Store) {
	got, err := s.FastTrackCapacities(t.Context())
	MustNoError(t, err, "FastTrackCapacities")
	if got == nil || len(got) != 0 {
		t.Fatalf("capacities never set = %#v, want an empty map", got)
	}
}

// testCapacitiesEverySet: every fast-track with a capacity is listed once, with the
// last capacity set (0 included), and agrees with FastTrackCapacity.
func testCapacitiesEverySet(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	for _, c := range []struct {
		id string
		n  int
	}{{"ft-a", 40}, {"ft-b", 0}, {"ft-a", 75}, {"ft-c", 10000}} {
		MustNoError(t, s.SetFastTrackCapacity(ctx, c.id, c.n, T0, Audit("SetFastTrackCapacity")), "SetFastTrackCapacity")
	}
	got, err := s.FastTrackCapacities(ctx)
	MustNoError(t, err, "FastTrackCapacities")
	want := map[string]int{"ft-a": 75, "ft-b": 0, "ft-c": 10000}
	if !maps.Equal(got, want) {
		t.Fatalf("capacities = %v, want %v", got, want)
	}
	for id, n := range want {
		one, ok, err := s.FastTrackCapacity(ctx, id)
		MustNoError(t, err, "FastTrackCapacity")
		if !ok || one != n {
			t.Fatalf("FastTrackCapacity(%s) = %d (ok %v), the list says %d", id, one, ok, n)
		}
	}
}

// capacityResetTests cover removing an admin's capacity per slot: the catalog's
// applies again, a removal of none is no error, and each is audited with the
// capacity it removed.
var capacityResetTests = []test{
	{"RemovesAndAudits", testCapacityResetRemovesAndAudits},
	{"NeedsAudit", testCapacityResetNeedsAudit},
}

func testCapacityResetRemovesAndAudits(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	MustNoError(t, s.SetFastTrackCapacity(ctx, "ft-a", 40, T0, Audit("SetFastTrackCapacity")), "SetFastTrackCapacity")
	MustNoError(t, s.SetFastTrackCapacity(ctx, "ft-b", 7, T0, Audit("SetFastTrackCapacity")), "SetFastTrackCapacity")
	first, again := Audit("DeleteFastTrackCapacity"), Audit("DeleteFastTrackCapacity")
	MustNoError(t, s.DeleteFastTrackCapacity(ctx, "ft-a", first), "DeleteFastTrackCapacity")
	MustNoError(t, s.DeleteFastTrackCapacity(ctx, "ft-a", again), "DeleteFastTrackCapacity of none")
	if n, ok, err := s.FastTrackCapacity(ctx, "ft-a"); err != nil || ok {
		t.Fatalf("FastTrackCapacity after the reset = %d, %v, %v; want none", n, ok, err)
	}
	got, err := s.FastTrackCapacities(ctx)
	MustNoError(t, err, "FastTrackCapacities")
	if want := map[string]int{"ft-b": 7}; !maps.Equal(got, want) {
		t.Fatalf("capacities after the reset = %v, want %v", got, want)
	}
	for _, c := range []struct {
		audit *skygate.AuditEvent
		want  string
	}{{first, `{"previous_capacity_per_slot":40}`}, {again, `{"previous_capacity_per_slot":null}`}} {
		events, _, err := s.ListAuditEvents(ctx, skygate.AuditFilter{Action: c.audit.Action}, skygate.Page{Limit: 100})
		MustNoError(t, err, "ListAuditEvents")
		found := false
		for _, e := range events {
			if e.ID == c.audit.ID {
				found = true
				var got, want any
				if json.Unmarshal(e.Details, &got) != nil || json.Unmarshal([]byte(c.want), &want) != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("record %s details %s, want %s", e.ID, e.Details, c.want)
				}
			}
		}
		if !found {
			t.Errorf("record %s of the reset was not written", c.audit.ID)
		}
	}
}

func testCapacityResetNeedsAudit(t *testing.T, s skygate.Store) {
	ctx := t.Context()
	MustNoError(t, s.SetFastTrackCapacity(ctx, "ft-a", 40, T0, Audit("SetFastTrackCapacity")), "SetFastTrackCapacity")
	if err := s.DeleteFastTrackCapacity(ctx, "ft-a", nil); err == nil {
		t.Fatal("DeleteFastTrackCapacity without an audit record succeeded")
	}
	if n, ok, err := s.FastTrackCapacity(ctx, "ft-a"); err != nil || !ok || n != 40 {
		t.Fatalf("FastTrackCapacity after a refused reset = %d, %v, %v; want 40", n, ok, err)
	}
}
