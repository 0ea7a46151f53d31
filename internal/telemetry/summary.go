package telemetry

import (
	"strings"
)

// verbs are the statement kinds a summary names; any other first word is OTHER.
var verbs = map[string]bool{
	"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true, "WITH": true, "VALUES": true,
	"BEGIN": true, "COMMIT": true, "ROLLBACK": true, "SAVEPOINT": true, "RELEASE": true, "END": true,
	"CREATE": true, "ALTER": true, "DROP": true, "TRUNCATE": true, "PRAGMA": true, "SET": true,
	"SHOW": true, "LOCK": true, "EXPLAIN": true, "ANALYZE": true, "VACUUM": true, "REINDEX": true,
	"COPY": true,
}

// Summarize names a SQL statement by its kind and the table it mainly works on, as the
// OpenTelemetry database conventions' query summary does: "SELECT bookings", "INSERT
// webhook_deliveries", "UPDATE esims", "DELETE login_codes". The kind of a WITH
// statement is that of its main statement; a statement without a table it can name
// (SELECT 1, BEGIN, a SELECT from a subquery) is its kind alone, and a kind outside
// the common ones is OTHER. verb is the kind, table the table or "". The result
// carries no literal of the statement, and takes its names from the statement's text
// only: the store's statements are a fixed set, so its summaries are too.
func Summarize(query string) (summary, verb, table string) {
	t := tokenizer{s: query}
	first := strings.ToUpper(t.word())
	if !verbs[first] {
		return "OTHER", "OTHER", ""
	}
	verb = first
	if verb == "WITH" {
		verb = t.until("SELECT", "INSERT", "UPDATE", "DELETE")
		if verb == "" {
			return "WITH", "WITH", ""
		}
	}
	switch verb {
	case "SELECT", "DELETE":
		if t.until("FROM") != "" {
			table = t.table()
		}
	case "INSERT":
		if t.until("INTO") != "" {
			table = t.table()
		}
	case "UPDATE":
		if next := t; strings.EqualFold(next.word(), "OR") { // SQLite's UPDATE OR <action> t
			next.word()
			t = next
		}
		table = t.table()
	}
	if table == "" {
		return verb, verb, ""
	}
	return verb + " " + table, verb, table
}

// tokenizer reads the words of a SQL statement outside comments, string literals and
// quoted names, and knows the parenthesis depth of each.
type tokenizer struct {
	s     string
	depth int
}

// word returns the next word (letters, digits, '_', '$' and '.'), skipping whatever
// else comes before it; "" at the end.
func (t *tokenizer) word() string {
	for len(t.s) > 0 {
		c := t.s[0]
		switch {
		case isWordByte(c):
			i := 0
			for i < len(t.s) && isWordByte(t.s[i]) {
				i++
			}
			w := t.s[:i]
			t.s = t.s[i:]
			return w
		case c == '(':
			t.depth++
		case c == ')':
			t.depth--
		case strings.HasPrefix(t.s, "--"):
			_, rest, _ := strings.Cut(t.s, "\n")
			t.s = rest
			continue
		case strings.HasPrefix(t.s, "/*"):
			_, rest, _ := strings.Cut(t.s[2:], "*/")
			t.s = rest
			continue
		case c == '\'' || c == '"' || c == '`':
			// A literal or a quoted name: skipped whole ('' and "" escape themselves).
			end := strings.IndexByte(t.s[1:], c)
			if end < 0 {
				t.s = ""
				return ""
			}
			t.s = t.s[end+2:]
			continue
		}
		t.s = t.s[1:]
	}
	return ""
}

// until skips to the first of words (any case) outside parentheses and returns it in
// upper case, or "" when none follows.
func (t *tokenizer) until(words ...string) string {
	for {
		w := t.word()
		if w == "" {
			return ""
		}
		if t.depth != 0 {
			continue
		}
		for _, want := range words {
			if strings.EqualFold(w, want) {
				return want
			}
		}
	}
}

// table returns the next word when it directly follows and names a table (lower-case
// letters, digits, '_' and a schema's '.'), skipping PostgreSQL's ONLY; else "".
func (t *tokenizer) table() string {
	rest := strings.TrimLeft(t.s, " \t\r\n")
	if rest == "" || !isWordByte(rest[0]) {
		return ""
	}
	w := t.word()
	if strings.EqualFold(w, "ONLY") {
		return t.table()
	}
	if len(w) > 63 {
		return ""
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.') {
			return ""
		}
	}
	return w
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$' || c == '.'
}
