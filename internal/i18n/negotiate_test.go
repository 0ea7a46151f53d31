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
		{"malformed q skips only that item", "ru;q=abc, kk;q=0.3", "kk"},
		{"q above one is malformed", "ru;q=1.5, uz;q=0.2", "uz"},
		{"q with four decimals is malformed", "ru;q=0.1234, uz;q=0.2", "uz"},
		{"q=1.000", "kk;q=0.9, ru;q=1.000", "ru"},
		{"q=0. is zero", "ru;q=0., kk;q=0.001", "kk"},
		{"uppercase Q", "ru;Q=0.2, kk;q=0.1", "ru"},
		{"OWS around semicolon", "ru ; q=0.2 , kk ;q=0.3", "kk"},
		{"unknown parameter ignored", "kk;level=1", "kk"},
		{"star after named en", "en;q=0, *", "ru"},
		{"star beats lower q", "*;q=0.9, fr", "en"},
		{"star low q vs kk", "*;q=0.1, kk;q=0.5", "kk"},
		{"star skips named languages", "en;q=0, ru;q=0, *;q=0.5", "uz"},
		{"star when all named", "en;q=0, ru;q=0, uz;q=0, kk;q=0, *", "en"},
		{"regional q=0 with base acceptable", "ru-RU;q=0, ru", "ru"},
		{"three-letter codes", "kaz, eng;q=0.5", "kk"},
		{"three-letter uzn", "uzn;q=0.4, fr", "uz"},
		{"subtag too long", "ru-abcdefghi, kk;q=0.1", "kk"},
		{"primary too long", "abcdefghi", "en"},
		{"digits in primary", "r1, kk;q=0.1", "kk"},
		{"empty subtag", "ru--RU, kk;q=0.1", "kk"},
		{"trailing dash", "ru-, kk;q=0.1", "kk"},
		{"trailing dash after a subtag", "ru-RU-, kk;q=0.1", "kk"},
		{"q without a value", "ru;q, kk;q=0.1", "ru"},
		{"underscore is invalid", "ru_RU, kk;q=0.1", "kk"},
		{"non-ASCII", "рус, kk;q=0.1", "kk"},
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
}

func TestNegotiateHugeHeaderKeepsEarlyItems(t *testing.T) {
	t.Parallel()
	h := "kk;q=0.5, " + strings.Repeat("a", 2000)
	if got := i18n.Negotiate(h); got != "kk" {
		t.Errorf("Negotiate(long) = %q, want kk", got)
	}
}

func TestNegotiateDoesNotAllocate(t *testing.T) {
	header := "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7,*;q=0.1"
	if n := testing.AllocsPerRun(100, func() { i18n.Negotiate(header) }); n != 0 {
		t.Errorf("Negotiate allocates %v times per call", n)
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

func BenchmarkNegotiate(b *testing.B) {
	for _, h := range []string{"", "ru", "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7"} {
		b.Run(strings.ReplaceAll(h, ",", "|"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				i18n.Negotiate(h)
			}
		})
	}
}
