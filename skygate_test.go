package skygate_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 100 {
		id := skygate.NewID()
		if !skygate.IsID(id) || id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
	// Time-ordered: the first 48 bits are the Unix milliseconds of its making.
	before := time.Now().UnixMilli()
	id := skygate.NewID()
	ms, err := strconv.ParseInt(strings.ReplaceAll(id[:13], "-", ""), 16, 64)
	if err != nil || ms < before || ms > time.Now().UnixMilli() {
		t.Fatalf("id %s carries %d ms, made at %d ms", id, ms, before)
	}
	time.Sleep(2 * time.Millisecond)
	if later := skygate.NewID(); later <= id {
		t.Fatalf("id %s made 2 ms after %s sorts before it", later, id)
	}
	// Within a process, even inside one millisecond, each id sorts after the last.
	prev := skygate.NewID()
	for range 1000 {
		next := skygate.NewID()
		if next <= prev {
			t.Fatalf("id %s made after %s sorts before it", next, prev)
		}
		prev = next
	}
	for _, bad := range []string{"", "x", strings.ToUpper(skygate.NewID()), "00000000-0000-0000-0000-00000000000g", "000000000000-0000-0000-0000-00000000"} {
		if skygate.IsID(bad) {
			t.Errorf("IsID(%q) = true", bad)
		}
	}
	if id := skygate.NewClientID(); !strings.HasPrefix(id, "skg_") || len(id) != 28 {
		t.Errorf("NewClientID = %q", id)
	}
}

func TestErrorCodeAndMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err       error
		code, msg string
	}{
		{nil, "", ""},
		{skygate.Errorf(skygate.CodeNotFound, "no booking %s", "b1"), skygate.CodeNotFound, "no booking b1"},
		{&skygate.Error{Code: skygate.CodeConflict, Message: "taken", Err: errors.New("sql: boom")}, skygate.CodeConflict, "taken"},
	} {
		if got := skygate.ErrorCode(tc.err); got != tc.code {
			t.Errorf("ErrorCode(%v) = %q", tc.err, got)
		}
		if got := skygate.ErrorMessage(tc.err); got != tc.msg {
			t.Errorf("ErrorMessage(%v) = %q", tc.err, got)
		}
	}
}

func TestInternalErrorsHideTheirCause(t *testing.T) {
	t.Parallel()
	err := errors.New("pq: relation bookings does not exist")
	if skygate.ErrorCode(err) != skygate.CodeInternal || strings.Contains(skygate.ErrorMessage(err), "pq") {
		t.Fatalf("internal error leaks: %q", skygate.ErrorMessage(err))
	}
}
