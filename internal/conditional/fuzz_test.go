package conditional_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/conditional"
)

// FuzzNotModified drives NotModified with arbitrary If-None-Match and If-Modified-Since
// values, entity tags and modification times. It never panics and keeps the rules of
// RFC 9110 §13.1: only GET and HEAD are conditional; If-None-Match, when present, alone
// decides (so a matching date cannot rescue a failing tag list); the resource's own
// date in any of the three HTTP-date formats is "not modified", one second earlier is
// "modified"; and an older resource is never "modified" where a newer one was not.
func FuzzNotModified(f *testing.F) {
	for _, s := range []struct {
		inm, ims, etag string
		unix           int64
	}{
		{"", "Sun, 01 Mar 2026 10:30:15 GMT", `"v1"`, 1772361015},
		{`"v1"`, "", `"v1"`, 1772361015},
		{`W/"v1", "v2"`, "garbage", `"v2"`, 0},
		{"*", "", "", 1},
		{" ", "Sunday, 01-Mar-26 10:30:15 GMT", `"x"`, 1772361015},
		{"", "Sun Mar  1 10:30:15 2026", `W/"x"`, 1772361015},
		{"", "Sun, 01 Mar 2026 10:30:15 GMT\x00", `"x"`, 1772361015},
		{"", "Mon, 32 Foo 99999 99:99:99 GMT", `"x"`, 253402300799},
		{"\"\x80\"", "Thu, 01 Jan 1970 00:00:00 GMT", "\"\x80\"", -1},
	} {
		f.Add(s.inm, s.ims, s.etag, s.unix)
	}
	f.Fuzz(func(t *testing.T, inm, ims, etag string, unix int64) {
		// HTTP dates have four-digit years.
		const lo, hi = -62135596800, 253402300799 // 0001-01-01, 9999-12-31T23:59:59
		if unix < lo || unix > hi {
			unix = lo + (unix%(hi-lo)+(hi-lo))%(hi-lo)
		}
		modified := time.Unix(unix, 987_000_000).UTC()
		req := func(method string, h map[string]string) *http.Request {
			r := httptest.NewRequest(method, "/v2/catalog/lounges", nil)
			for k, v := range h {
				r.Header[k] = []string{v}
			}
			return r
		}
		both := map[string]string{"If-None-Match": inm, "If-Modified-Since": ims}
		got := conditional.NotModified(req(http.MethodGet, both), etag, modified)
		if conditional.NotModified(req(http.MethodHead, both), etag, modified) != got {
			t.Fatal("HEAD and GET disagree")
		}
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
			if conditional.NotModified(req(m, both), etag, modified) {
				t.Fatalf("%s is conditional", m)
			}
		}
		// An older resource is not modified whenever the newer one is not.
		if got && !conditional.NotModified(req(http.MethodGet, both), etag, modified.Add(-time.Hour)) {
			t.Fatalf("INM %q IMS %q: not modified at %v but modified an hour earlier", inm, ims, modified)
		}
		// If-None-Match decides alone when present.
		exact := conditional.NotModified(req(http.MethodGet, map[string]string{"If-None-Match": `"fuzz-never"`, "If-Modified-Since": ims}), etag, modified)
		if exact && etag != `"fuzz-never"` && etag != `W/"fuzz-never"` {
			t.Fatalf("a non-matching If-None-Match was rescued by If-Modified-Since %q (etag %q)", ims, etag)
		}
		// The resource's own date is not modified, in each format; a second earlier is.
		sec := modified.Truncate(time.Second)
		if sec.Year() < 1 || sec.Year() > 9999 {
			return
		}
		for _, layout := range []string{http.TimeFormat, time.RFC850, time.ANSIC} {
			if layout == time.RFC850 && (sec.Year() < 1970 || sec.Year() > 2068) {
				continue // two-digit years
			}
			own := sec.Format(layout)
			if !conditional.NotModified(req(http.MethodGet, map[string]string{"If-Modified-Since": own}), etag, modified) {
				t.Fatalf("If-Modified-Since %q (its own date) is modified at %v", own, modified)
			}
			earlier := sec.Add(-time.Second).Format(layout)
			if conditional.NotModified(req(http.MethodGet, map[string]string{"If-Modified-Since": earlier}), etag, modified) {
				t.Fatalf("If-Modified-Since %q (a second earlier) is not modified at %v", earlier, modified)
			}
		}
	})
}
