package esim

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/language"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/catalog"
)

// PackageQuery is a query of the eSIM package catalog: the airport catalog's paging,
// name and country filters (catalog.Query) and the filters only packages have.
type PackageQuery struct {
	catalog.Query
	// Region is one of Regions; "" means any. A package matches when at least one of
	// its countries lies in the region.
	Region string
	// Unlimited, when set, keeps only the packages whose data is unlimited (true) or
	// limited (false).
	Unlimited *bool
	// TopUp, when set, keeps only the packages that are (true) or are not (false)
	// sold as top-ups.
	TopUp *bool
}

// DefaultPackageQuery is the query of a request without parameters.
var DefaultPackageQuery = PackageQuery{Query: catalog.DefaultQuery}

// Regions are the values of the region filter and of ESIMPackageItem.Regions: the
// five continental regions of UN M49, by their names.
var Regions = []string{"africa", "americas", "asia", "europe", "oceania"}

// m49 maps each of Regions to its UN M49 code.
var m49 = map[string]language.Region{
	"africa":   language.MustParseRegion("002"),
	"americas": language.MustParseRegion("019"),
	"asia":     language.MustParseRegion("142"),
	"europe":   language.MustParseRegion("150"),
	"oceania":  language.MustParseRegion("009"),
}

// countryRegions maps every ISO 3166-1 alpha-2 country code to the regions (of
// Regions) it lies in, by CLDR's containment as golang.org/x/text has it (which places
// Antarctica in Oceania, unlike UN M49). It is built once, at start-up: the regions
// of a country never change, and every package item names its regions.
var countryRegions = func() map[string][]string {
	out := map[string][]string{}
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			if err != nil || !r.IsCountry() {
				continue
			}
			for _, region := range Regions {
				if m49[region].Contains(r) {
					out[code] = append(out[code], region)
				}
			}
		}
	}
	return out
}()

// inRegion reports whether the ISO 3166-1 alpha-2 country lies in the named region
// (one of Regions). A code that is not a country lies in none.
func inRegion(country, region string) bool {
	return slices.Contains(countryRegions[country], region)
}

// PackageRegions returns the regions (of Regions, in that order, which is sorted) in
// which at least one of countries lies; an empty slice, never nil, when none does.
func PackageRegions(countries []string) []string {
	out := []string{}
	for _, region := range Regions {
		if slices.ContainsFunc(countries, func(c string) bool { return inRegion(c, region) }) {
			out = append(out, region)
		}
	}
	return out
}

// packageItem returns p in the partner-facing form in lang with its regions: every
// ESIMPackageItem the service answers is made here.
func packageItem(p *skygate.ESIMPackage, lang string) *skygate.ESIMPackageItem {
	item := p.In(lang)
	item.Regions = PackageRegions(p.Countries)
	return item
}

// matches reports whether p passes q's package filters (not name, which is matched
// against the localized name).
func (q PackageQuery) matches(p *skygate.ESIMPackage) bool {
	switch {
	case !p.Active,
		q.Country != "" && !slices.Contains(p.Countries, q.Country),
		q.Region != "" && !slices.ContainsFunc(p.Countries, func(c string) bool { return inRegion(c, q.Region) }),
		q.Unlimited != nil && *q.Unlimited != (p.DataMB == nil),
		q.TopUp != nil && *q.TopUp != p.TopUp:
		return false
	}
	return true
}

// validatorParts returns the parts of q that select a page, for its validators: two
// queries that may answer different bodies never share a part list.
func (q PackageQuery) validatorParts() []string {
	flag := func(b *bool) string {
		if b == nil {
			return ""
		}
		return strconv.FormatBool(*b)
	}
	return []string{q.Name, q.Country, q.Region, flag(q.Unlimited), flag(q.TopUp)}
}

// ParsePackageQuery reads a package query from a raw query string: what
// catalog.ParseQuery reads, and region (one of Regions, case-insensitive),
// unlimited and top_up ("true" or "false"). As there, an empty value counts as
// absent, a parameter given twice is invalid, other parameters are ignored, and every
// invalid parameter is reported at once in one CodeBadRequest *skygate.Error, one
// FieldError per parameter.
func ParsePackageQuery(raw string) (PackageQuery, error) {
	q := DefaultPackageQuery
	var problems []skygate.FieldError
	base, err := catalog.ParseQuery(raw)
	if err != nil {
		var se *skygate.Error
		if !errors.As(err, &se) {
			return DefaultPackageQuery, err
		}
		problems = append(problems, se.Fields...)
	}
	q.Query = base
	values, err := url.ParseQuery(raw)
	if err != nil {
		// catalog.ParseQuery reported the query as a whole already.
		return DefaultPackageQuery, &skygate.Error{Code: skygate.CodeBadRequest, Message: "invalid query parameter", Fields: problems}
	}
	bad := func(field, msg string) { problems = append(problems, skygate.FieldError{Field: field, Message: msg}) }
	get := func(name string) (string, bool) { return catalog.OneValue(values, name, bad) }
	if s, ok := get("region"); ok {
		if r := strings.ToLower(s); slices.Contains(Regions, r) {
			q.Region = r
		} else {
			bad("region", "must be one of africa, americas, asia, europe, oceania")
		}
	}
	flags := []struct {
		name string
		dst  **bool
	}{{"unlimited", &q.Unlimited}, {"top_up", &q.TopUp}}
	for _, f := range flags {
		s, ok := get(f.name)
		if !ok {
			continue
		}
		switch s {
		case "true", "false":
			*f.dst = new(s == "true")
		default:
			bad(f.name, "must be true or false")
		}
	}
	if problems != nil {
		return DefaultPackageQuery, &skygate.Error{Code: skygate.CodeBadRequest, Message: "invalid query parameter", Fields: problems}
	}
	return q, nil
}
