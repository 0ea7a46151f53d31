package catalog_test

import (
	"strings"
	"testing"

	"github.com/skygate/skygate/internal/catalog"
)

func TestFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"ascii lower unchanged", "plaza premium", "plaza premium"},
		{"ascii upper", "PLAZA Premium", "plaza premium"},
		{"cyrillic", "ТАШКЕНТ", "ташкент"},
		{"kazakh letters", "ҰШЫП КЕТУ, ӘУЕЖАЙ", "ұшып кету, әуежай"},
		{"turkish dotted capital I", "İSTANBUL", "istanbul"},
		{"turkish dotless i", "ıstanbul", "istanbul"},
		{"decomposed dotted I", "I\u0307stanbul", "istanbul"},
		{"yo as ye", "Самолёт", "самолет"},
		{"uzbek okina", "Oʻzbekiston", "o'zbekiston"},
		{"right quote", "O’zbekiston", "o'zbekiston"},
		{"backquote", "O`zbekiston", "o'zbekiston"},
		{"em dash", "Fast Track — Arrivals", "fast track - arrivals"},
		{"no-break space", "VIP\u00a0zal", "vip zal"},
		{"NFD to NFC", "И\u0306", "й"},
		{"final sigma", "ΑΣ ς", "ασ σ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := catalog.Fold(tt.in); got != tt.want {
				t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFoldMatching(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, filter string
		match        bool
	}{
		{"Ташкент", "ТАШ", true},
		{"Ташкент", "кент", true},
		{"Istanbul Airport", "İSTANBUL", true},
		{"IGA Lounge", "ıga", true},
		{"Toshkent xalqaro aeroporti", "TOSHKENT", true},
		{"Ichki reyslar uchun boʻlim", "bo'lim", true},
		{"Бизнес-зал", "БИЗНЕС-ЗАЛ", true},
		{"Бизнес-зал", "бизнесзал", false},
		{"Алматы", "Астана", false},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.filter, func(t *testing.T) {
			t.Parallel()
			got := strings.Contains(catalog.Fold(tt.name), catalog.Fold(tt.filter))
			if got != tt.match {
				t.Errorf("match(%q, %q) = %v, want %v", tt.name, tt.filter, got, tt.match)
			}
		})
	}
}
