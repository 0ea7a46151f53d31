package storetest

import (
	"maps"
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
