package sealtest

import (
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/seal"
)

// New returns the sealer of a store of its own: a subkey of a new random master key,
// as the server derives it (seal.PurposeStoreRecords).
func New(tb testing.TB) skygate.Sealer {
	tb.Helper()
	box, err := seal.New(seal.NewMasterKey())
	if err != nil {
		tb.Fatalf("seal.New: %v", err)
	}
	sealer, err := seal.New(box.DeriveKey(seal.PurposeStoreRecords))
	if err != nil {
		tb.Fatalf("seal.New: %v", err)
	}
	return sealer
}
