package esim_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

func TestParsePackageQuery(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name, raw string
		want      esim.PackageQuery
		bad       []string // fields of the CodeBadRequest error; nil when valid
	}{
		{name: "Empty", raw: "", want: esim.DefaultPackageQuery},
		{name: "Region", raw: "region=Oceania", want: withQuery(func(q *esim.PackageQuery) { q.Region = "oceania" })},
		{name: "Flags", raw: "unlimited=true&top_up=false", want: withQuery(func(q *esim.PackageQuery) { q.Unlimited, q.TopUp = &yes, &no })},
		{name: "WithCatalogFilters", raw: "country=uz&name=Asia&limit=5&region=asia",
			want: withQuery(func(q *esim.PackageQuery) { q.Country, q.Name, q.Limit, q.Region = "UZ", "asia", 5, "asia" })},
		{name: "EmptyIsAbsent", raw: "region=&unlimited=&top_up=", want: esim.DefaultPackageQuery},
		{name: "UnknownParameterIgnored", raw: "continent=asia", want: esim.DefaultPackageQuery},
		{name: "UnknownRegion", raw: "region=antarctica", bad: []string{"region"}},
		{name: "RegionCode", raw: "region=150", bad: []string{"region"}},
		{name: "RegionNUL", raw: "region=asia%00", bad: []string{"region"}},
		{name: "RegionTwice", raw: "region=asia&region=europe", bad: []string{"region"}},
		{name: "UnlimitedYes", raw: "unlimited=yes", bad: []string{"unlimited"}},
		{name: "TopUpUpperCase", raw: "top_up=TRUE", bad: []string{"top_up"}},
		{name: "TopUp1", raw: "top_up=1", bad: []string{"top_up"}},
		{name: "AllAtOnce", raw: "limit=0&region=mars&unlimited=2&top_up=x", bad: []string{"limit", "region", "unlimited", "top_up"}},
		{name: "BadEscape", raw: "region=%zz", bad: []string{"query"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, err := esim.ParsePackageQuery(tt.raw)
			if tt.bad != nil {
				storetest.WantCode(t, err, skygate.CodeBadRequest)
				var se *skygate.Error
				if !errors.As(err, &se) {
					t.Fatalf("error %T, want *skygate.Error", err)
				}
				var fields []string
				for _, f := range se.Fields {
					fields = append(fields, f.Field)
				}
				if !slices.Equal(fields, tt.bad) {
					t.Errorf("fields %v, want %v", fields, tt.bad)
				}
				return
			}
			storetest.MustNoError(t, err, tt.raw)
			if q.Query != tt.want.Query || q.Region != tt.want.Region || !sameFlag(q.Unlimited, tt.want.Unlimited) || !sameFlag(q.TopUp, tt.want.TopUp) {
				t.Errorf("ParsePackageQuery(%q) = %+v, want %+v", tt.raw, q, tt.want)
			}
		})
	}
}

func TestPackageRegions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		countries []string
		want      []string
	}{
		{[]string{"UZ"}, []string{"asia"}},
		{[]string{"TR"}, []string{"asia"}},
		{[]string{"RU"}, []string{"europe"}},
		{[]string{"FR", "DE"}, []string{"europe"}},
		{[]string{"US", "BR"}, []string{"americas"}},
		{[]string{"EG", "AU", "JP", "GB", "MX"}, []string{"africa", "americas", "asia", "europe", "oceania"}},
		{[]string{"AQ"}, []string{"oceania"}}, // CLDR's containment, which x/text follows: Outlying Oceania
		{[]string{"ZZ"}, []string{}},
		{nil, []string{}},
	}
	for _, tt := range tests {
		if got := esim.PackageRegions(tt.countries); !slices.Equal(got, tt.want) || got == nil {
			t.Errorf("PackageRegions(%v) = %#v, want %v", tt.countries, got, tt.want)
		}
	}
}

// withQuery returns the default package query changed by fn.
func withQuery(fn func(q *esim.PackageQuery)) esim.PackageQuery {
	q := esim.DefaultPackageQuery
	fn(&q)
	return q
}

func sameFlag(a, b *bool) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
