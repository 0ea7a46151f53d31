package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/skygate/skygate"
)

// A booking's JSON columns (flight, passengers, status_history) are read on every
// booking read, and by the worker for every booking it issues, inside the one SQLite
// writer. encoding/json's reflection was most of that read. The columns are read by
// hand when they hold exactly what jsonText writes (the struct's fields in order, the
// optional ones present or not, strings without escapes); anything else (a string
// with an escape, a row written some other way) goes to encoding/json, so the two
// readings never differ. Both engines store these columns as text.

// flightCol, passengersCol and historyCol scan the booking's JSON columns.
type (
	flightCol     struct{ f *skygate.Flight }
	passengersCol struct{ p *[]skygate.Passenger }
	historyCol    struct{ h *[]skygate.StatusChange }
)

func (c flightCol) Scan(src any) error     { return scanJSONColumn(src, c.f, readFlight) }
func (c passengersCol) Scan(src any) error { return scanJSONColumn(src, c.p, readPassengers) }
func (c historyCol) Scan(src any) error    { return scanJSONColumn(src, c.h, readHistory) }

// scanJSONColumn reads a text column into dst: with read when it takes the whole
// text, else with encoding/json, which also reports what is wrong with it.
func scanJSONColumn[T any](src any, dst *T, read func(*lexer) T) error {
	var text string
	switch t := src.(type) {
	case string:
		text = t
	case []byte:
		text = string(t)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as JSON", src)
	}
	l := &lexer{s: text, ok: true}
	if v := read(l); l.ok && l.i == len(l.s) {
		*dst = v
		return nil
	}
	return json.Unmarshal([]byte(text), dst)
}

// readFlight reads a Flight as jsonText writes it.
func readFlight(l *lexer) skygate.Flight {
	var f skygate.Flight
	l.lit(`{"number":`)
	f.Number = l.str()
	l.lit(`,"direction":`)
	f.Direction = skygate.FlightDirection(l.str())
	l.lit(`}`)
	return f
}

// readPassengers reads a list of Passenger as jsonText writes it, the fields that
// omitempty leaves out absent or not.
func readPassengers(l *lexer) []skygate.Passenger {
	return list(l, func() skygate.Passenger {
		var p skygate.Passenger
		l.lit(`{"first_name":`)
		p.FirstName = l.str()
		l.lit(`,"last_name":`)
		p.LastName = l.str()
		for _, f := range [...]struct {
			key string
			v   *string
		}{
			{`,"date_of_birth":`, &p.DateOfBirth}, {`,"passport_number":`, &p.PassportNumber},
			{`,"nationality":`, &p.Nationality}, {`,"email":`, &p.Email}, {`,"phone":`, &p.Phone},
		} {
			if l.opt(f.key) {
				*f.v = l.str()
			}
		}
		l.lit(`}`)
		return p
	})
}

// readHistory reads a list of StatusChange as jsonText writes it.
func readHistory(l *lexer) []skygate.StatusChange {
	return list(l, func() skygate.StatusChange {
		var c skygate.StatusChange
		l.lit(`{"status":`)
		c.Status = skygate.BookingStatus(l.str())
		l.lit(`,"at":`)
		c.At = l.time()
		l.lit(`}`)
		return c
	})
}

// lexer reads the JSON that jsonText writes, and nothing more: every method sets ok to
// false, and returns a zero value, at the first byte it does not expect.
type lexer struct {
	s  string
	i  int
	ok bool
}

// lit takes the literal t.
func (l *lexer) lit(t string) {
	if !l.ok || len(l.s)-l.i < len(t) || l.s[l.i:l.i+len(t)] != t {
		l.ok = false
		return
	}
	l.i += len(t)
}

// opt takes the literal t if it comes next, and says whether it did.
func (l *lexer) opt(t string) bool {
	if l.ok && len(l.s)-l.i >= len(t) && l.s[l.i:l.i+len(t)] == t {
		l.i += len(t)
		return true
	}
	return false
}

// str takes a string without escapes, in valid UTF-8 and without control characters:
// what it reads is then what it means.
func (l *lexer) str() string {
	l.lit(`"`)
	if !l.ok {
		return ""
	}
	start, ascii := l.i, true
	for ; l.i < len(l.s); l.i++ {
		switch c := l.s[l.i]; {
		case c == '"':
			v := l.s[start:l.i]
			l.i++
			if !ascii && !utf8.ValidString(v) {
				l.ok = false
				return ""
			}
			return v
		case c == '\\' || c < 0x20:
			l.ok = false
			return ""
		case c >= 0x80:
			ascii = false
		}
	}
	l.ok = false
	return ""
}

// time takes a string holding a time as time.Time's UnmarshalJSON reads it.
func (l *lexer) time() time.Time {
	start := l.i
	l.str()
	var t time.Time
	if l.ok && t.UnmarshalJSON([]byte(l.s[start:l.i])) != nil {
		l.ok = false
	}
	return t
}

// list reads a JSON array whose every element item reads: [] is an empty list, not
// nil, as encoding/json reads it.
func list[T any](l *lexer, item func() T) []T {
	out := []T{}
	l.lit(`[`)
	if l.opt(`]`) {
		return out
	}
	for l.ok {
		out = append(out, item())
		if l.opt(`]`) {
			break
		}
		l.lit(`,`)
	}
	return out
}
