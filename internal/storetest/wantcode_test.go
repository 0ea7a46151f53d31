package storetest

import (
	"errors"
	"testing"

	"github.com/skygate/skygate"
)

// failRecorder is a testing.TB that records Fatalf instead of stopping the test.
type failRecorder struct {
	testing.TB
	failed bool
}

func (r *failRecorder) Helper()               {}
func (r *failRecorder) Fatalf(string, ...any) { r.failed = true }

func TestWantCodeLeaks(t *testing.T) {
	tests := []struct {
		name string
		err  error
		fail bool
	}{
		{"clean", skygate.Errorf(skygate.CodeConflict, "an account named %q already exists", "Example"), false},
		{"a quoted value that looks like a leak", skygate.Errorf(skygate.CodeConflict, "an account named %q already exists", "other wr4khcltsql2jjcep4g57ywmap"), false},
		{"a quoted value with an escaped quote", skygate.Errorf(skygate.CodeConflict, "an account named %q already exists", `a "sql" b`), false},
		{"the driver's words", &skygate.Error{Code: skygate.CodeConflict, Message: `duplicate key value violates unique constraint "accounts_pkey"`}, true},
		{"the driver's words beside a value", skygate.Errorf(skygate.CodeConflict, "%q: sql: no rows in result set", "x"), true},
		{"another code", errors.New("boom"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &failRecorder{TB: t}
			WantCode(r, tt.err, skygate.CodeConflict)
			if r.failed != tt.fail {
				t.Errorf("WantCode failed = %v, want %v", r.failed, tt.fail)
			}
		})
	}
}
