package esim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/skygate/skygate"
)

// TestPackagesETagRepresentation: the representation version is part of the hashed
// input of a catalog page's ETag, so the ETag of a fixed catalog is not the one issued
// before items gained regions and refund_window_days (the hash of "esim-packages"),
// and it is pinned: a change of the golden value is a change of every ETag, which
// belongs with a bump of packagesRepresentation.
func TestPackagesETagRepresentation(t *testing.T) {
	t.Parallel()
	cat := &skygate.ESIMCatalog{AccountID: "acc-1", Version: 3}
	p, err := page(cat, "en", map[string]string{"id": "p1"}, "item", "p1")
	if err != nil {
		t.Fatal(err)
	}
	etagOf := func(parts ...string) string {
		h := sha256.New()
		for _, s := range parts {
			h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(s))))
			h.Write([]byte(s))
		}
		return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
	}
	if want := etagOf(packagesRepresentation, "acc-1", "3", "en", "item", "p1"); p.ETag != want {
		t.Errorf("ETag %s, want %s: the representation is not hashed first", p.ETag, want)
	}
	if v1 := etagOf("esim-packages", "acc-1", "3", "en", "item", "p1"); p.ETag == v1 {
		t.Errorf("ETag %s is the one of the shape before regions and refund_window_days", p.ETag)
	}
	if golden := `"` + goldenPackagesETag + `"`; p.ETag != golden {
		t.Errorf("ETag %s, golden %s", p.ETag, golden)
	}
}

// goldenPackagesETag is the ETag of TestPackagesETagRepresentation's page under
// esim-packages/v2.
const goldenPackagesETag = "a071f4092c7cea9cbdfd5bb2b7053d1d"
