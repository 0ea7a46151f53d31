package telemetry

import (
	"slices"
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
// webhook_deliveries", "UPDATE esims", "DELETE login_codes". The kind and table of a
// WITH statement are those of its main statement, unless that works on no table or
// only on one of the WITH queries: then they are those of its first WITH query that
// writes, if any. A statement without a table it can name (SELECT 1, BEGIN, a SELECT
// from a subquery) is its kind alone, and a kind outside the common ones is OTHER.
// verb is the kind, table the table or "". The result carries no literal of the
// statement, and takes its names from the statement's text only: the store's
// statements are a fixed set, so its summaries are too.
func Summarize(query string) (summary, verb, table string) {
	t := tokenizer{s: query}
	verb = strings.ToUpper(t.word())
	if !verbs[verb] {
		return "OTHER", "OTHER", ""
	}
	var (
		ctes  []string
		write [2]string // the first writing WITH query's kind and table
	)
	if verb == "WITH" {
		verb = ""
		prev := ""
		for verb == "" {
			w := t.word()
			up := strings.ToUpper(w)
			switch {
			case w == "":
				return "WITH", "WITH", ""
			case t.depth == 0 && (up == "SELECT" || up == "INSERT" || up == "UPDATE" || up == "DELETE"):
				verb = up
			case t.depth == 0 && up != "RECURSIVE" && up != "AS" && up != "NOT" && up != "MATERIALIZED":
				ctes = append(ctes, w)
			case t.depth == 1 && (prev == "AS" || prev == "MATERIALIZED") && write[0] == "" &&
				(up == "INSERT" || up == "UPDATE" || up == "DELETE"):
				write = [2]string{up, t.target(up, 1)}
			}
			prev = up
		}
	}
	table = t.target(verb, 0)
	if verb != "" && (table == "" || slices.Contains(ctes, table)) {
		table = ""
		if write[0] != "" {
			verb, table = write[0], write[1]
		}
	}
	if table == "" {
		return verb, verb, ""
	}
	return verb + " " + table, verb, table
}

// target reads the table that a statement of kind verb, whose first word was just
// read, works on: the one after FROM (SELECT, DELETE), INTO (INSERT) or the kind
// itself (UPDATE), at parenthesis depth depth; "" when it names none.
func (t *tokenizer) target(verb string, depth int) string {
	switch verb {
	case "SELECT", "DELETE":
		if t.until(depth, "FROM") != "" {
			return t.table()
		}
	case "INSERT":
		if t.until(depth, "INTO") != "" {
			return t.table()
		}
	case "UPDATE":
		if next := *t; strings.EqualFold(next.word(), "OR") { // SQLite's UPDATE OR <action> t
			next.word()
			*t = next
		}
		return t.table()
	}
	return ""
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

// until skips to the first of words (any case) at parenthesis depth depth and returns
// it in upper case, or "" when none follows before the end or the close of that depth.
func (t *tokenizer) until(depth int, words ...string) string {
	for {
		w := t.word()
		if w == "" || t.depth < depth {
			return ""
		}
		if t.depth != depth {
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
