package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// timeCol scans a time column stored either as int64 unix microseconds (SQLite) or as
// a timestamp (PostgreSQL) into a UTC time.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*c.t = time.UnixMicro(v).UTC()
	case time.Time:
		*c.t = UTC(v)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T into a time", src)
	}
	return nil
}

// jsonCol scans a JSON text column into the value it points to.
type jsonCol struct{ v any }

func (c jsonCol) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return json.Unmarshal([]byte(v), c.v)
	case []byte:
		return json.Unmarshal(v, c.v)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as JSON", src)
	}
}

// JSONText encodes v as the JSON text stored in a column.
func JSONText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("sqlstore: encode JSON: %w", err)
	}
	return string(b), nil
}

// NonNil returns b, or an empty slice for nil: NOT NULL blob columns reject the NULL
// that drivers send for a nil slice.
func NonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// QueryAll runs query on db and scans every row with scan. The result is never nil, so
// an empty list encodes as [].
func QueryAll[T any](ctx context.Context, db Queryer, scan func(Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // rows.Err below reports a failed read
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
