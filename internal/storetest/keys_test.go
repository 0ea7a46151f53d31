package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

var keyTests = []test{
	{"CreateAndList", testKeyCreateAndList},
	{"Duplicate", testKeyDuplicate},
	{"Delete", testKeyDelete},
}

func testKeyCreateAndList(t *testing.T, s skygate.Store) {
	wantEqual(t, "keys of an empty store", MustSigningKeys(t, s), []*skygate.SigningKey{})

	// Inserted out of ActiveAt order; the list must follow ActiveAt, not insertion.
	second := MustCreateSigningKey(t, s, WithActiveAt(At(2*time.Hour)))
	first := MustCreateSigningKey(t, s, func(k *skygate.SigningKey) {
		k.PrivateKeyEnc = []byte{0, 0xff, 0x10, 0}
		k.CreatedAt = time.Date(2025, 6, 1, 0, 0, 0, 1999, time.FixedZone("UTC-3", -3*3600))
		k.ActiveAt = At(-time.Hour)
	})
	third := MustCreateSigningKey(t, s, WithActiveAt(At(3*time.Hour)))

	got := MustSigningKeys(t, s)
	wantEqual(t, "keys", got, []*skygate.SigningKey{first, second, third})
	for _, k := range got {
		wantUTC(t, "key "+k.ID, k.CreatedAt, k.ActiveAt)
	}
	wantEqual(t, "CreatedAt", got[0].CreatedAt, time.Date(2025, 6, 1, 3, 0, 0, 1000, time.UTC))
}

func testKeyDuplicate(t *testing.T, s skygate.Store) {
	k := MustCreateSigningKey(t, s)
	dup := &skygate.SigningKey{ID: k.ID, PrivateKeyEnc: []byte("p"), PublicKeyDER: []byte("q"),
		CreatedAt: T0, ActiveAt: T0}
	WantCode(t, s.CreateSigningKey(t.Context(), dup), skygate.CodeConflict)
	wantEqual(t, "keys", MustSigningKeys(t, s), []*skygate.SigningKey{k})
}

func testKeyDelete(t *testing.T, s skygate.Store) {
	keys := make([]*skygate.SigningKey, 4)
	for i := range keys {
		keys[i] = MustCreateSigningKey(t, s, WithActiveAt(At(time.Duration(i)*time.Hour)))
	}
	tests := []struct {
		name   string
		delete []string
		want   []*skygate.SigningKey
	}{
		{"nothing", nil, keys},
		{"unknown kids are ignored", []string{NewID(), NewID()}, keys},
		{"some, with an unknown one", []string{keys[0].ID, NewID(), keys[2].ID}, []*skygate.SigningKey{keys[1], keys[3]}},
		{"again", []string{keys[0].ID}, []*skygate.SigningKey{keys[1], keys[3]}},
		{"the rest", []string{keys[3].ID, keys[1].ID}, []*skygate.SigningKey{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			MustNoError(t, s.DeleteSigningKeys(t.Context(), tt.delete), "DeleteSigningKeys")
			wantEqual(t, "keys", MustSigningKeys(t, s), tt.want)
		})
	}
}
