package i18n_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/i18n"
)

func TestNegotiate(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("de-DE;q=0.9, ", 200) + "ru"
	tests := []struct {
		name, header, want string
	}{
		{"empty", "", "en"},
		{"exactly en", "en", "en"},
		{"exactly ru", "ru", "ru"},
		{"exactly uz", "uz", "uz"},
		{"exactly kk", "kk", "kk"},
		{"uppercase", "KK", "kk"},
		{"blank", "  \t ", "en"},
		{"star", "*", "en"},
		{"unsupported", "fr", "en"},
		{"regional ru", "ru-RU", "ru"},
		{"uppercase regional", "RU-ru", "ru"},
		{"uz Latin with region", "uz-Latn-UZ", "uz"},
		{"uz Cyrillic is still uz", "uz-Cyrl-UZ", "uz"},
		{"uz Cyrillic before en", "uz-Cyrl, en;q=0.9", "uz"},
		{"kk region", "kk-KZ", "kk"},
		{"higher q wins", "kk;q=0.5, ru;q=0.8", "ru"},
		{"unsupported first then low q", "de, kk;q=0.1", "kk"},
		{"en excluded only", "en;q=0", "en"},
		{"ru excluded, en", "ru;q=0, en", "en"},
		{"everything excluded", "ru;q=0, kk;q=0, uz;q=0, en;q=0", "en"},
		{"garbage", ";;;", "en"},
		{"commas", ",,, ,", "en"},
		{"private use", "x-klingon", "en"},
		{"grandfathered", "i-klingon, kk;q=0.2", "kk"},
		{"huge header cut to its first KiB", huge, "en"},
		{"chinese then uz", "zh-Hant-TW, uz;q=0.9", "uz"},
		{"equal q keeps order", "kk;q=0.7, ru;q=0.7", "kk"},
		{"equal implicit q keeps order", "uz, ru", "uz"},
		{"browser style", "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"},
		// An invalid list counts as absent, as x/text's ParseAcceptLanguage has it,
		// rather than losing only the bad item: browsers send valid lists, and the
		// contract says an invalid value yields en.
		{"malformed q invalidates the header", "ru;q=abc, kk;q=0.3", "en"},
		{"unknown language invalidates the header", "ru, xx", "en"},
		{"unknown variant invalidates the header", "kk-KZ-abcde, ru;q=0.5", "en"},
		{"unknown region is ignored", "ru-XX", "ru"},
		// Weights are read as numbers, as the library reads them.
		{"q above one is read as written", "ru;q=1.5, uz;q=0.2", "ru"},
		{"q with four decimals is read as written", "ru;q=0.2001, uz;q=0.2", "ru"},
		{"q=1.000", "kk;q=0.9, ru;q=1.000", "ru"},
		{"q=0. is zero", "ru;q=0., kk;q=0.001", "kk"},
		{"uppercase Q is invalid for the library", "ru;Q=0.2, kk;q=0.1", "en"},
		{"OWS around semicolon", "ru ; q=0.2 , kk ;q=0.3", "kk"},
		// RFC 9110 §12.5.4 allows no parameter but the weight.
		{"unknown parameter is invalid", "kk;level=1", "en"},
		// "*" matches nothing: q=0 is no exclusion, so "*" cannot stand for what
		// the header leaves out, and a named language wins over it.
		{"star after excluded en", "en;q=0, *", "en"},
		{"named language beats star", "*, kk;q=0.1", "kk"},
		{"star beats lower q", "*;q=0.9, fr", "en"},
		{"star low q vs kk", "*;q=0.1, kk;q=0.5", "kk"},
		{"star after excluded languages", "en;q=0, ru;q=0, *;q=0.5", "en"},
		{"star when all named", "en;q=0, ru;q=0, uz;q=0, kk;q=0, *", "en"},
		{"regional q=0 with base acceptable", "ru-RU;q=0, ru", "ru"},
		{"three-letter codes", "kaz, eng;q=0.5", "kk"},
		{"three-letter uzn", "uzn;q=0.4, fr", "uz"},
		{"three-letter uzb", "uzb", "uz"},
		{"uz in Arabic script is uz", "uz-Arab", "uz"},
		{"kk in Latin script is kk", "kk-Latn-KZ", "kk"},
		// Languages whose speakers often read Russian are still unsupported
		// (the library's matcher would answer ru with less than exact confidence).
		{"kyrgyz", "ky", "en"},
		{"belarusian then ru", "be, ru;q=0.1", "ru"},
		{"ukrainian", "uk", "en"},
		{"uzbek of Afghanistan is another language", "uzs", "en"},
		{"undetermined in Cyrillic", "und-Cyrl", "en"},
		{"library's English alias", "english, kk;q=0.5", "en"},
		{"subtag too long", "ru-abcdefghi, kk;q=0.1", "en"},
		{"primary too long", "abcdefghi", "en"},
		{"digits in primary", "r1, kk;q=0.1", "en"},
		{"empty subtag", "ru--RU, kk;q=0.1", "en"},
		{"trailing dash", "ru-, kk;q=0.1", "en"},
		{"trailing dash after a subtag", "ru-RU-, kk;q=0.1", "en"},
		{"q without a value", "ru;q, kk;q=0.1", "en"},
		{"underscore is read as a dash", "ru_RU, kk;q=0.1", "ru"},
		{"non-ASCII", "рус, kk;q=0.1", "en"},
		{"tab separated", "\tkk\t;\tq=0.5", "kk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := i18n.Negotiate(tt.header); got != tt.want {
				t.Errorf("Negotiate(%q) = %q, want %q", tt.header, got, tt.want)
			}
		})
	}
}

func TestNegotiateItemCap(t *testing.T) {
	t.Parallel()
	// The 33rd item is never read, however good its weight.
	h := strings.Repeat("fr, ", i18n.MaxItems) + "kk"
	if got := i18n.Negotiate(h); got != "en" {
		t.Errorf("Negotiate(33 items) = %q, want en", got)
	}
	h = strings.Repeat("fr, ", i18n.MaxItems-1) + "kk"
	if got := i18n.Negotiate(h); got != "kk" {
		t.Errorf("Negotiate(32 items) = %q, want kk", got)
	}
	// Empty elements count.
	h = strings.Repeat(",", i18n.MaxItems) + "kk"
	if got := i18n.Negotiate(h); got != "en" {
		t.Errorf("Negotiate(32 empty elements, kk) = %q, want en", got)
	}
	h = strings.Repeat(",", i18n.MaxItems-1) + "kk"
	if got := i18n.Negotiate(h); got != "kk" {
		t.Errorf("Negotiate(31 empty elements, kk) = %q, want kk", got)
	}
}

func TestNegotiateHugeHeaderKeepsEarlyItems(t *testing.T) {
	t.Parallel()
	h := "kk;q=0.5, " + strings.Repeat("a", 2000)
	if got := i18n.Negotiate(h); got != "kk" {
		t.Errorf("Negotiate(long) = %q, want kk", got)
	}
}

// TestNegotiateHostileCostIsBounded checks the limits by allocations, which unlike
// time are exact: a hostile header allocates no more than the longest header Negotiate
// reads.
func TestNegotiateHostileCostIsBounded(t *testing.T) {
	longest := strings.Repeat("en-US;q=0.5, ", i18n.MaxItems-1) + "en-US;q=0.5"
	bound := testing.AllocsPerRun(100, func() { i18n.Negotiate(longest) })
	for _, h := range benchHeaders {
		if n := testing.AllocsPerRun(100, func() { i18n.Negotiate(h.header) }); n > bound {
			t.Errorf("Negotiate(%s) allocates %v times, more than the %v of %d read items", h.name, n, bound, i18n.MaxItems)
		}
	}
}

func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{
		"", "*", "fr", "ru-RU", "uz-Cyrl-UZ", "kk;q=0.5, ru;q=0.8", "de, kk;q=0.1",
		"en;q=0", "ru;q=0, en", ";;;", "x-klingon", "zh-Hant-TW, uz;q=0.9",
		"ru;q=1.000", "*;q=0.5, en;q=0", strings.Repeat("kk, ", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		got := i18n.Negotiate(header)
		if !slices.Contains(skygate.Languages, got) {
			t.Fatalf("Negotiate(%q) = %q, not a supported language", header, got)
		}
	})
}

// benchHeaders are typical headers and hostile ones, which the limits must keep cheap.
var benchHeaders = []struct{ name, header string }{
	{"empty", ""},
	{"ru", "ru"},
	{"browser", "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7"},
	{"unsupported_then_kk", "de-DE,de;q=0.9,fr;q=0.8,kk;q=0.1"},
	{"hostile_8KiB", strings.Repeat("xx-YY;q=0.1, ", 700)},
	{"hostile_no_comma_2KiB", strings.Repeat("a", 2048)},
	{"hostile_1000_dashes", strings.Repeat("x-", 1000)},
	{"hostile_long_items", strings.Repeat("abcdefgh-abcdefgh-abcdefgh;q=0.001,", 40)},
}

func BenchmarkNegotiate(b *testing.B) {
	for _, h := range benchHeaders {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				i18n.Negotiate(h.header)
			}
		})
	}
}
