package conditional_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/conditional"
)

const etag = `"v1-abc"`

var modified = time.Date(2026, 3, 1, 10, 30, 15, 500_000_000, time.UTC)

// date formats t as an IMF-fixdate.
func date(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

func TestNotModified(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		method  string
		headers map[string][]string
		etag    string
		lastMod time.Time
		want    bool
	}{
		{name: "no conditional headers", want: false},
		{name: "strong equal", headers: h("If-None-Match", `"v1-abc"`), want: true},
		{name: "different tag", headers: h("If-None-Match", `"v2"`), want: false},
		{name: "weak request, strong current", headers: h("If-None-Match", `W/"v1-abc"`), want: true},
		{name: "strong request, weak current", headers: h("If-None-Match", `"v1-abc"`), etag: `W/"v1-abc"`, want: true},
		{name: "weak both", headers: h("If-None-Match", `W/"v1-abc"`), etag: `W/"v1-abc"`, want: true},
		{name: "list match last", headers: h("If-None-Match", `"a", W/"b" ,"v1-abc"`), want: true},
		{name: "list no match", headers: h("If-None-Match", `"a", "b"`), want: false},
		{name: "several header lines", headers: h("If-None-Match", `"a"`, `"v1-abc"`), want: true},
		{name: "star", headers: h("If-None-Match", `*`), want: true},
		{name: "star with OWS", headers: h("If-None-Match", ` * `), want: true},
		{name: "star in a list", headers: h("If-None-Match", `"x", *`), want: true},
		{name: "star glued is malformed", headers: h("If-None-Match", `*x`), want: false},
		{name: "unquoted is malformed", headers: h("If-None-Match", `v1-abc`), want: false},
		{name: "malformed then match", headers: h("If-None-Match", `v1-abc, "v1-abc"`), want: true},
		{name: "garbage after tag skips it", headers: h("If-None-Match", `"v1-abc"x, "z"`), want: false},
		{name: "unterminated quote", headers: h("If-None-Match", `"v1-abc`), want: false},
		{name: "lowercase w prefix is malformed", headers: h("If-None-Match", `w/"v1-abc"`), want: false},
		{name: "comma inside tag", headers: h("If-None-Match", `"a,b"`), etag: `"a,b"`, want: true},
		{name: "space inside tag is malformed", headers: h("If-None-Match", `"v1 abc"`), etag: `"v1 abc"`, want: false},
		{name: "empty opaque tag", headers: h("If-None-Match", `""`), etag: `""`, want: true},
		{name: "no current etag", headers: h("If-None-Match", `"v1-abc"`), etag: "-", want: false},
		{name: "no current etag, star", headers: h("If-None-Match", `*`), etag: "-", want: true},
		{name: "empty list elements", headers: h("If-None-Match", `, ,"v1-abc",`), want: true},
		{name: "gzip variant", headers: h("If-None-Match", `"v1-abc-gzip"`), want: true},
		{name: "weak gzip variant", headers: h("If-None-Match", `W/"v1-abc-gzip"`), want: true},
		{name: "gzip variant in a list", headers: h("If-None-Match", `"a", "v1-abc-gzip"`), want: true},
		{name: "gzip variant, weak current", headers: h("If-None-Match", `"v1-abc-gzip"`), etag: `W/"v1-abc"`, want: true},
		{name: "gzip variant twice over", headers: h("If-None-Match", `"v1-abc-gzip-gzip"`), want: false},
		{name: "another suffix", headers: h("If-None-Match", `"v1-abc-gz"`), want: false},
		{name: "suffix without its dash", headers: h("If-None-Match", `"v1-abcgzip"`), want: false},
		{name: "gzip variant of another tag", headers: h("If-None-Match", `"v1-abd-gzip"`), want: false},
		{name: "the suffix alone", headers: h("If-None-Match", `"-gzip"`), want: false},
		{name: "gzip variant of the empty tag", headers: h("If-None-Match", `"-gzip"`), etag: `""`, want: true},
		{name: "identity tag when the current one is a gzip tag", headers: h("If-None-Match", `"v1-abc"`), etag: `"v1-abc-gzip"`, want: false},
		{
			name:    "If-None-Match mismatch ignores matching If-Modified-Since",
			headers: hh(h("If-None-Match", `"other"`), h("If-Modified-Since", date(modified.Add(time.Hour)))),
			want:    false,
		},
		{
			name:    "If-None-Match match ignores failing If-Modified-Since",
			headers: hh(h("If-None-Match", etag), h("If-Modified-Since", date(modified.Add(-time.Hour)))),
			want:    true,
		},
		{
			name:    "blank If-None-Match counts as absent",
			headers: hh(h("If-None-Match", " "), h("If-Modified-Since", date(modified))),
			want:    true,
		},
		{name: "IMS equal to the second", headers: h("If-Modified-Since", date(modified)), want: true},
		{name: "IMS later", headers: h("If-Modified-Since", date(modified.Add(time.Minute))), want: true},
		{name: "IMS earlier", headers: h("If-Modified-Since", date(modified.Add(-time.Second))), want: false},
		{name: "IMS RFC 850", headers: h("If-Modified-Since", modified.UTC().Format(time.RFC850)), want: true},
		{name: "IMS asctime", headers: h("If-Modified-Since", modified.UTC().Format(time.ANSIC)), want: true},
		{name: "IMS invalid", headers: h("If-Modified-Since", "yesterday"), want: false},
		{name: "IMS ISO 8601 is invalid", headers: h("If-Modified-Since", "2030-01-01T00:00:00Z"), want: false},
		{name: "IMS twice", headers: h("If-Modified-Since", date(modified), date(modified)), want: false},
		{name: "IMS without modification time", headers: h("If-Modified-Since", date(modified)), lastMod: time.Time{}, want: false},
		{name: "HEAD", method: http.MethodHead, headers: h("If-None-Match", etag), want: true},
		{name: "POST never", method: http.MethodPost, headers: h("If-None-Match", etag), want: false},
		{name: "PUT with IMS never", method: http.MethodPut, headers: h("If-Modified-Since", date(modified)), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			r := httptest.NewRequest(method, "/v2/catalog/lounges", nil)
			for k, vs := range tt.headers {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			e := tt.etag
			switch e {
			case "":
				e = etag
			case "-":
				e = ""
			}
			lm := tt.lastMod
			if lm.IsZero() && !strings.Contains(tt.name, "without modification") {
				lm = modified
			}
			if got := conditional.NotModified(r, e, lm); got != tt.want {
				t.Errorf("NotModified(%v, %q, %v) = %v, want %v", tt.headers, e, lm, got, tt.want)
			}
		})
	}
}

func TestGzipETag(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`"v1-abc"`: `"v1-abc-gzip"`, `W/"v1"`: `W/"v1-gzip"`, `""`: `"-gzip"`, `unquoted`: `unquoted-gzip`,
	} {
		if got := conditional.GzipETag(in); got != want {
			t.Errorf("GzipETag(%s) = %s, want %s", in, got, want)
		}
	}
}

func h(k string, vs ...string) map[string][]string { return map[string][]string{k: vs} }

func hh(a, b map[string][]string) map[string][]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func FuzzETagListMatches(f *testing.F) {
	for _, s := range []string{
		`"a"`, `W/"a"`, `*`, ` * `, `"a", "b"`, `"a,b"`, `W/`, `"`, `,,,`, `W/"a" x, "b"`,
		"\"\x80\"", `"a"*`,
	} {
		f.Add(s, `"b"`)
	}
	f.Fuzz(func(t *testing.T, list, tag string) {
		conditional.ETagListMatches(list, tag)
		// Whatever precedes it, a well-formed tag after a quote-free element is found.
		if !strings.Contains(list, `"`) {
			if !conditional.ETagListMatches(list+`, "b"`, `"b"`) {
				t.Fatalf("%q does not match after %q", `"b"`, list)
			}
		}
		if !conditional.ETagListMatches("*", tag) {
			t.Fatalf("* does not match %q", tag)
		}
		// A valid entity tag (RFC 9110 §8.8.3: W/ optional, then an opaque-tag) matches
		// its gzip variant, which matches only itself and its own gzip variant, never the
		// tag. (A malformed one such as `",*` is a list holding "*", which matches all.)
		if opaque := strings.TrimPrefix(tag, "W/"); len(opaque) >= 2 && opaque[0] == '"' && opaque[len(opaque)-1] == '"' && etagcs(opaque[1:len(opaque)-1]) &&
			conditional.ETagListMatches(tag, tag) {
			gz := conditional.GzipETag(tag)
			if !conditional.ETagListMatches(gz, tag) {
				t.Fatalf("%s does not match its gzip variant %s", tag, gz)
			}
			if conditional.ETagListMatches(tag, gz) {
				t.Fatalf("%s matches %s", gz, tag)
			}
		}
	})
}

// etagcs is the definition of an opaque-tag's characters in RFC 9110 §8.8.3, range by
// range: %x21 / %x23-7E / obs-text (%x80-FF).
func etagcs(s string) bool {
	for _, c := range []byte(s) {
		if !(c == 0x21 || 0x23 <= c && c <= 0x7e || 0x80 <= c) {
			return false
		}
	}
	return true
}

// TestValidOpaque holds the check to the RFC's definition: every byte value at every
// position of strings from empty to three words and a bit, among neighbours at the
// edges of the ranges (obs-text, '!', '#', DEL's neighbour '~'), and random strings
// over the bytes at the edges of etagc.
func TestValidOpaque(t *testing.T) {
	t.Parallel()
	check := func(s string) {
		t.Helper()
		if got, want := conditional.ValidOpaque(s), etagcs(s); got != want {
			t.Fatalf("validOpaque(%q) = %v, want %v", s, got, want)
		}
	}
	for n := 0; n <= 26; n++ {
		for _, fill := range []byte{'a', '!', '#', '~', 0x80, 0xa1, 0xff} {
			w := []byte(strings.Repeat(string(fill), n))
			check(string(w))
			for pos := range n {
				for c := range 256 {
					w[pos] = byte(c)
					check(string(w))
				}
				w[pos] = fill
			}
		}
	}
	edges := []byte{0x00, 0x09, 0x20, 0x21, 0x22, 0x23, 0x7e, 0x7f, 0x80, 0xa2, 0xfe, 0xff, 'v', '-'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		w := make([]byte, rng.IntN(41))
		for i := range w {
			w[i] = edges[rng.IntN(len(edges))]
			if rng.IntN(4) > 0 { // mostly valid, so that one bad byte decides
				w[i] = byte(0x23 + rng.IntN(0x7f-0x23))
				if rng.IntN(3) == 0 {
					w[i] = byte(0x80 + rng.IntN(0x80))
				}
			}
		}
		check(string(w))
	}
}

// FuzzValidOpaque: the check and the RFC's definition agree.
func FuzzValidOpaque(f *testing.F) {
	for _, s := range []string{"", "v1-abc", "0123456789abcdef0123456789abcdef", "\x80\xff!#~", "abcdefg\x7f", "abcdefgh\"", "abc def"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := conditional.ValidOpaque(s), etagcs(s); got != want {
			t.Fatalf("validOpaque(%q) = %v, want %v", s, got, want)
		}
	})
}

func BenchmarkNotModified(b *testing.B) {
	r := httptest.NewRequest(http.MethodGet, "/v2/catalog/lounges", nil)
	r.Header.Set("If-None-Match", `W/"x", "y", "v1-abc"`)
	b.Run("IfNoneMatch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			conditional.NotModified(r, etag, modified)
		}
	})
	r2 := httptest.NewRequest(http.MethodGet, "/v2/catalog/lounges", nil)
	r2.Header.Set("If-Modified-Since", date(modified))
	b.Run("IfModifiedSince", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			conditional.NotModified(r2, etag, modified)
		}
	})
}
