package httpapi

import "testing"

func TestSafeCell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"order 42", "order 42"},
		{"a=b", "a=b"},
		{"O'Brien", "O'Brien"},
		{"=1+1", "'=1+1"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"  =1+1", "'  =1+1"},
		{`"=HYPERLINK("x")`, `'"=HYPERLINK("x")`},
		{`' "@cmd`, `'' "@cmd`},
		{" \t=1", "' \t=1"},
		{"   ", "   "},
		{`"quoted"`, `"quoted"`},
	} {
		if got := safeCell(tc.in); got != tc.want {
			t.Errorf("safeCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
