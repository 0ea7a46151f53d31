package jsonstring_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/skygate/skygate/internal/jsonstring"
	"github.com/skygate/skygate/internal/wordbits"
)

// FuzzAppend: for any string, valid UTF-8 or not, Append writes what encoding/json
// writes, with and without HTML escaping.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "\x00\b\f\n\r\t\x1f\x7f\"\\/", "<a href='x'>&amp;</a>", "Ада\u2028\u2029", "\xff\xfe\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			if got := jsonstring.Append(nil, s, html); !bytes.Equal(got, want) {
				t.Fatalf("Append(%q, %v)\n got %s\nwant %s", s, html, got, want)
			}
		}
	})
}

// BenchmarkAppend writes the strings of one access-log line.
func BenchmarkAppend(b *testing.B) {
	strs := []string{"GET", "/v2/catalog/fast-tracks", "GET /v2/catalog/fast-tracks", "0868bc6b77527e51-2",
		"0190f3c2-7d52-7bd6-a3c4-0a1b2c3d4e5f", "skg_4dqitpyozt3fgpf2jqgi2j6b"}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			buf = jsonstring.Append(buf, s, false)
		}
	}
}

// TestSpecial8 checks the word-at-a-time tests against the byte tables: every byte value
// at every position of a word of plain bytes, with neighbours that could borrow.
func TestSpecial8(t *testing.T) {
	for _, fill := range []byte{'a', ' ', '~', '!', '#'} {
		for pos := range 8 {
			for c := range 256 {
				w := []byte{fill, fill, fill, fill, fill, fill, fill, fill}
				w[pos] = byte(c)
				x := wordbits.Load64(string(w), 0)
				if got, want := jsonstring.Special8(x), !jsonstring.PlainASCII[c]; got != want {
					t.Fatalf("special8(%q) = %v, want %v", w, got, want)
				}
				if got, want := jsonstring.SpecialHTML8(x), !jsonstring.PlainASCIIHTML[c]; got != want {
					t.Fatalf("specialHTML8(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}
