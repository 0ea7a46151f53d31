package sqlstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// rowOf is a Scanner of one row of column values, scanned as a driver would.
type rowOf []any

func (r rowOf) Scan(dest ...any) error {
	for i, d := range dest {
		switch d := d.(type) {
		case *string:
			*d = r[i].(string)
		case sql.Scanner:
			if err := d.Scan(r[i]); err != nil {
				return err
			}
		default:
			return fmt.Errorf("cannot scan into %T", d)
		}
	}
	return nil
}

// TestHistoryData checks that esim_history.data holds an entry's fields beside at and
// kind, which are columns, and that an entry reads back whole from the columns and
// data, also from rows written when data held at and kind as well.
func TestHistoryData(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := &skygate.ESIMHistoryEntry{At: at, Kind: skygate.HistoryToppedUp, TopUpID: "tu_1", PackageID: "pkg_1",
		Price: &skygate.Money{Amount: 500, Currency: "USD"}}
	data, err := historyData(h)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(data), &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"at", "kind"} {
		if _, ok := keys[k]; ok {
			t.Errorf("data %s holds %q", data, k)
		}
	}
	if len(keys) != 3 {
		t.Errorf("data %s, want top_up_id, package_id and price", data)
	}
	old := `{"at":"0001-01-01T00:00:00Z","kind":"","top_up_id":"tu_1","package_id":"pkg_1","price":{"amount":500,"currency":"USD"}}`
	for _, d := range []string{data, old} {
		got, err := scanHistory(rowOf{at.UnixMicro(), string(h.Kind), d})
		if err != nil {
			t.Fatalf("scan %s: %v", d, err)
		}
		if a, b := mustJSON(t, got), mustJSON(t, h); a != b {
			t.Errorf("read back from %s:\n%s\nwant\n%s", d, a, b)
		}
	}
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
