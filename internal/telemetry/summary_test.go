package telemetry

import "testing"

func TestSummarize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query, summary, verb, table string
	}{
		{"SELECT id, name FROM accounts WHERE id = $1", "SELECT accounts", "SELECT", "accounts"},
		{"select * from bookings b where b.id = ?", "SELECT bookings", "SELECT", "bookings"},
		{"\n\t\tSELECT count(*) FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id", "SELECT webhook_deliveries", "SELECT", "webhook_deliveries"},
		{"SELECT extract(epoch FROM created_at) FROM esims", "SELECT esims", "SELECT", "esims"},
		{"SELECT x FROM (SELECT 1 AS x) AS sub", "SELECT", "SELECT", ""},
		{"SELECT 1", "SELECT", "SELECT", ""},
		{"SELECT current_schema()", "SELECT", "SELECT", ""},
		{"SELECT pg_advisory_xact_lock(1397180226, hashtext($1))", "SELECT", "SELECT", ""},
		{"INSERT INTO events (id, type) VALUES ($1, $2)", "INSERT events", "INSERT", "events"},
		{"INSERT OR IGNORE INTO login_codes (code) VALUES (?)", "INSERT login_codes", "INSERT", "login_codes"},
		{"UPDATE bookings SET status = 'Issued' WHERE id = $1", "UPDATE bookings", "UPDATE", "bookings"},
		{"UPDATE OR ROLLBACK esims SET used_mb = ?", "UPDATE esims", "UPDATE", "esims"},
		{"DELETE FROM login_codes WHERE expires_at < $1", "DELETE login_codes", "DELETE", "login_codes"},
		{"DELETE FROM ONLY signing_keys WHERE id = $1", "DELETE signing_keys", "DELETE", "signing_keys"},
		{"WITH picked AS MATERIALIZED (SELECT id FROM webhook_deliveries LIMIT 5) UPDATE webhook_deliveries SET leased_until = $1", "UPDATE webhook_deliveries", "UPDATE", "webhook_deliveries"},
		{"WITH k AS (INSERT INTO idempotency_records (a) VALUES ($1) RETURNING a) SELECT a FROM k", "INSERT idempotency_records", "INSERT", "idempotency_records"},
		{"WITH k AS (INSERT INTO idempotency_records (a) VALUES ($1) RETURNING 1), b AS (INSERT INTO bookings (x) SELECT $2 FROM k) SELECT (SELECT count(*) FROM k)", "INSERT idempotency_records", "INSERT", "idempotency_records"},
		{"WITH d AS (UPDATE esim_balances SET amount = amount + $1 RETURNING *) INSERT INTO esim_ledger (a) SELECT a FROM d", "INSERT esim_ledger", "INSERT", "esim_ledger"},
		{"WITH v (a, b) AS (SELECT * FROM unnest($1::text[])) SELECT a FROM v", "SELECT", "SELECT", ""},
		{"WITH RECURSIVE r AS NOT MATERIALIZED (DELETE FROM login_codes RETURNING id) SELECT count(*) FROM r", "DELETE login_codes", "DELETE", "login_codes"},
		{"-- name: ListThings\nSELECT * FROM things", "SELECT things", "SELECT", "things"},
		{"/* a comment FROM nowhere */ DELETE FROM audit_events", "DELETE audit_events", "DELETE", "audit_events"},
		{"SELECT 'FROM secrets' AS s FROM accounts", "SELECT accounts", "SELECT", "accounts"},
		{`SELECT "FROM" FROM "Quoted Table"`, "SELECT", "SELECT", ""},
		{"SELECT * FROM Bookings", "SELECT", "SELECT", ""},
		{"begin", "BEGIN", "BEGIN", ""},
		{"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "BEGIN", "BEGIN", ""},
		{"commit", "COMMIT", "COMMIT", ""},
		{"SAVEPOINT s1", "SAVEPOINT", "SAVEPOINT", ""},
		{"LOCK TABLE catalog_documents IN SHARE ROW EXCLUSIVE MODE", "LOCK", "LOCK", ""},
		{"CREATE TABLE accounts (id TEXT)", "CREATE", "CREATE", ""},
		{"GRANT ALL ON accounts TO x", "OTHER", "OTHER", ""},
		{"", "OTHER", "OTHER", ""},
		{"'unterminated", "OTHER", "OTHER", ""},
		{"SELECT * FROM 'x", "SELECT", "SELECT", ""},
	} {
		summary, verb, table := Summarize(tc.query)
		if summary != tc.summary || verb != tc.verb || table != tc.table {
			t.Errorf("Summarize(%q) = %q, %q, %q; want %q, %q, %q", tc.query, summary, verb, table, tc.summary, tc.verb, tc.table)
		}
	}
}

// FuzzSummarize: whatever the text, a summary is a known kind and at most a plain
// table name.
func FuzzSummarize(f *testing.F) {
	f.Add("SELECT * FROM bookings WHERE name = 'Ada Lovelace'")
	f.Add("INSERT INTO t (a) VALUES ('x')")
	f.Fuzz(func(t *testing.T, query string) {
		summary, verb, table := Summarize(query)
		if !verbs[verb] && verb != "OTHER" {
			t.Fatalf("Summarize(%q): verb %q", query, verb)
		}
		if want := verb + " " + table; table != "" && summary != want || table == "" && summary != verb {
			t.Fatalf("Summarize(%q) = %q, %q, %q", query, summary, verb, table)
		}
		for i := 0; i < len(table); i++ {
			if c := table[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.') {
				t.Fatalf("Summarize(%q): table %q", query, table)
			}
		}
	})
}
