package catalog

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // time zones must load on hosts without a zoneinfo database
	"unicode"
	"unicode/utf8"

	"github.com/skygate/skygate"
)

// Limits of the catalog document, beyond which Validate reports a field.
const (
	maxNameRunes = 200
	maxTextRunes = 2000
	maxCodeLen   = 32
	maxMinAge    = 21
	maxProblems  = 100
	// maxCapacityPerSlot bounds a fast-track's passengers per one-hour slot.
	maxCapacityPerSlot = 10000
	// maxHoursBefore bounds a cancellation tier: a year.
	maxHoursBefore = 8760
)

var (
	uuidPattern    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	amenityPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	codePattern    = regexp.MustCompile(`^[A-Z0-9][A-Z0-9-]*$`)
)

// Validate checks a decoded catalog document and returns nil or a CodeValidation
// *skygate.Error listing every problem (at most 100) by JSON path, such as
// "lounges[3].name.kk". It checks that:
//
//   - every text has all four languages, non-empty, without control characters;
//   - ids are lowercase UUIDs, unique across hubs, lounges and fast-tracks; amenity ids
//     are lowercase codes, unique; lounge codes are unique;
//   - hubs have a three-letter IATA and a four-letter ICAO code (upper case, unique), an
//     ISO 3166-1 alpha-2 country, coordinates in range and an IANA time zone that loads;
//   - every enumeration value is known, references resolve, business hours list days 1–7
//     once each in order with well-formed times, durations are ISO 8601, and images are
//     https URLs with distinct positive sort values;
//   - a fast-track's capacity_per_slot is 0–10000 and its policy.cancellation tiers have
//     hours_before 0–8760, strictly decreasing, and refund_percent 0–100.
func Validate(d *skygate.CatalogData) error {
	v := &validator{ids: map[string]string{}}
	if len(d.Hubs) == 0 {
		v.add("hubs", "must list at least one hub")
	}
	hubs := map[string]bool{}
	iata, icao := map[string]bool{}, map[string]bool{}
	for i, h := range d.Hubs {
		p := fmt.Sprintf("hubs[%d]", i)
		v.id(p+".id", h.ID)
		hubs[h.ID] = true
		v.text(p+".name", h.Name, maxNameRunes)
		v.text(p+".location.city", h.Location.City, maxNameRunes)
		v.upper(p+".location.country", h.Location.Country, 2)
		enum(v, p+".location.continent", h.Location.Continent, skygate.Continents)
		if c := h.Location.Coordinates; c.Latitude < -90 || c.Latitude > 90 {
			v.add(p+".location.coordinates.latitude", "must be between -90 and 90")
		}
		if c := h.Location.Coordinates; c.Longitude < -180 || c.Longitude > 180 {
			v.add(p+".location.coordinates.longitude", "must be between -180 and 180")
		}
		if _, err := time.LoadLocation(h.Timezone); err != nil || h.Timezone == "" || h.Timezone == "Local" {
			v.add(p+".timezone", "must be an IANA time zone name such as Asia/Tashkent")
		}
		enum(v, p+".kind", h.Kind, skygate.HubKinds)
		if h.Meta.Kind != h.Kind {
			v.add(p+".meta.kind", "must equal kind")
		}
		if v.upper(p+".meta.iata", h.Meta.IATA, 3) && v.unique(iata, p+".meta.iata", h.Meta.IATA) {
			iata[h.Meta.IATA] = true
		}
		if v.upper(p+".meta.icao", h.Meta.ICAO, 4) && v.unique(icao, p+".meta.icao", h.Meta.ICAO) {
			icao[h.Meta.ICAO] = true
		}
	}

	amenities := map[string]bool{}
	for i, a := range d.Amenities {
		p := fmt.Sprintf("amenities[%d]", i)
		if !amenityPattern.MatchString(a.ID) {
			v.add(p+".id", "must be a lowercase code of letters, digits and _, at most 32 long")
		} else if v.unique(amenities, p+".id", a.ID) {
			amenities[a.ID] = true
		}
		v.text(p+".name", a.Name, maxNameRunes)
	}

	codes := map[string]bool{}
	for i, l := range d.Lounges {
		p := fmt.Sprintf("lounges[%d]", i)
		v.id(p+".id", l.ID)
		v.ref(hubs, p+".hub_id", l.HubID)
		v.text(p+".name", l.Name, maxNameRunes)
		v.text(p+".description", l.Description, maxTextRunes)
		v.text(p+".direction_info", l.DirectionInfo, maxTextRunes)
		if len(l.Code) > maxCodeLen || !codePattern.MatchString(l.Code) {
			v.add(p+".code", "must be 1–32 upper-case letters, digits and -")
		} else if v.unique(codes, p+".code", l.Code) {
			codes[l.Code] = true
		}
		v.terminal(p+".terminal", l.Terminal)
		enum(v, p+".airside_zone", l.AirsideZone, skygate.AirsideZones)
		seen := map[string]bool{}
		for j, a := range l.Amenities {
			q := fmt.Sprintf("%s.amenities[%d].id", p, j)
			if v.ref(amenities, q, a.ID) && v.unique(seen, q, a.ID) {
				seen[a.ID] = true
			}
		}
		v.hours(p+".business_hours", l.BusinessHours)
		if l.Policy.Age.MinAge < 0 || l.Policy.Age.MinAge > maxMinAge {
			v.add(p+".policy.age.min_age", fmt.Sprintf("must be between 0 and %d", maxMinAge))
		}
		v.text(p+".policy.age.notes", l.Policy.Age.Notes, maxTextRunes)
		v.duration(p+".policy.stay.max_duration", l.Policy.Stay.MaxDuration)
		v.bookingInfo(p+".required_booking_info", l.RequiredBookingInfo)
		v.images(p+".images", l.Images)
	}

	for i, f := range d.FastTracks {
		p := fmt.Sprintf("fast_tracks[%d]", i)
		v.id(p+".id", f.ID)
		v.ref(hubs, p+".hub_id", f.HubID)
		v.text(p+".name", f.Name, maxNameRunes)
		v.terminal(p+".terminal", f.Terminal)
		enum(v, p+".airside_zone", f.AirsideZone, skygate.AirsideZones)
		v.hours(p+".business_hours", f.BusinessHours)
		v.bookingInfo(p+".required_booking_info", f.RequiredBookingInfo)
		v.duration(p+".policy.booking_before_hours", f.Policy.BookingBeforeHours)
		v.cancellation(p+".policy.cancellation", f.Policy.Cancellation)
		if f.CapacityPerSlot < 0 || f.CapacityPerSlot > maxCapacityPerSlot {
			v.add(p+".capacity_per_slot", fmt.Sprintf("must be between 0 and %d", maxCapacityPerSlot))
		}
	}

	if len(v.problems) == 0 {
		return nil
	}
	e := skygate.ValidationError(v.problems...)
	e.Message = "the catalog document failed validation"
	return e
}

// validator collects problems; ids maps every uuid seen to the path that used it first.
type validator struct {
	problems []skygate.FieldError
	ids      map[string]string
}

func (v *validator) add(field, msg string) {
	if len(v.problems) < maxProblems {
		v.problems = append(v.problems, skygate.FieldError{Field: field, Message: msg})
	}
}

func (v *validator) id(field, id string) {
	if !uuidPattern.MatchString(id) {
		v.add(field, "must be a lowercase UUID")
		return
	}
	if first, ok := v.ids[id]; ok {
		v.add(field, "duplicates "+first)
		return
	}
	v.ids[id] = field
}

func (v *validator) unique(seen map[string]bool, field, value string) bool {
	if seen[value] {
		v.add(field, fmt.Sprintf("%q is used twice", value))
		return false
	}
	return true
}

func (v *validator) ref(known map[string]bool, field, value string) bool {
	if !known[value] {
		v.add(field, fmt.Sprintf("%q is not defined in the document", value))
		return false
	}
	return true
}

func (v *validator) text(field string, t skygate.LocalizedText, maxRunes int) {
	for _, lang := range skygate.Languages {
		s := t.In(lang)
		switch {
		case strings.TrimSpace(s) == "":
			v.add(field+"."+lang, "must not be empty")
		case !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl):
			v.add(field+"."+lang, "must be UTF-8 text without control characters")
		case utf8.RuneCountInString(s) > maxRunes:
			v.add(field+"."+lang, fmt.Sprintf("must be at most %d characters", maxRunes))
		}
	}
}

// upper checks a code of exactly n ASCII upper-case letters.
func (v *validator) upper(field, s string, n int) bool {
	ok := len(s) == n && !strings.ContainsFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' })
	if !ok {
		v.add(field, fmt.Sprintf("must be %d upper-case letters", n))
	}
	return ok
}

func (v *validator) terminal(field, s string) {
	if strings.TrimSpace(s) == "" || len(s) > maxCodeLen || strings.ContainsFunc(s, unicode.IsControl) {
		v.add(field, "must be a non-empty name of at most 32 bytes")
	}
}

// enum checks that s is one of values.
func enum[T ~string](v *validator, field string, s T, values []T) {
	if !slices.Contains(values, s) {
		v.add(field, "must be one of "+strings.Join(strs(values), ", "))
	}
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, s := range vs {
		out[i] = string(s)
	}
	return out
}

func (v *validator) duration(field, s string) {
	if _, err := ParseISODuration(s); err != nil {
		v.add(field, `must be a positive ISO 8601 duration of days, hours and minutes, such as "PT3H"`)
	}
}

func (v *validator) bookingInfo(field string, infos []skygate.BookingInfo) {
	if len(infos) == 0 {
		v.add(field, "must name at least one item")
	}
	for i, in := range infos {
		switch {
		case !slices.Contains(skygate.BookingInfos, in):
			v.add(fmt.Sprintf("%s[%d]", field, i), "must be one of "+strings.Join(strs(skygate.BookingInfos), ", "))
		case slices.Index(infos, in) < i:
			v.add(fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("%q is listed twice", in))
		}
	}
}

func (v *validator) images(field string, images []skygate.ImageRecord) {
	sorts := map[int]bool{}
	for i, im := range images {
		p := fmt.Sprintf("%s[%d]", field, i)
		u, err := url.Parse(im.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(im.URL) > 2048 {
			v.add(p+".url", "must be an absolute https URL")
		}
		if im.Sort < 1 {
			v.add(p+".sort", "must be at least 1")
		} else if sorts[im.Sort] {
			v.add(p+".sort", fmt.Sprintf("%d is used twice", im.Sort))
		}
		sorts[im.Sort] = true
		v.text(p+".title", im.Title, maxNameRunes)
	}
}

// cancellation checks a cancellation policy: tiers by hours_before, largest first.
func (v *validator) cancellation(field string, rules []skygate.CancellationRule) {
	for i, r := range rules {
		p := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case r.HoursBefore < 0 || r.HoursBefore > maxHoursBefore:
			v.add(p+".hours_before", fmt.Sprintf("must be between 0 and %d", maxHoursBefore))
		case i > 0 && r.HoursBefore >= rules[i-1].HoursBefore:
			v.add(p+".hours_before", "must be less than the previous tier's: tiers are listed largest first")
		}
		if r.RefundPercent < 0 || r.RefundPercent > 100 {
			v.add(p+".refund_percent", "must be between 0 and 100")
		}
	}
}
