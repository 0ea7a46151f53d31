package booking

import (
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/skygate/skygate"
)

// Request limits and formats. They are part of the contract (CONTRACT §4) and of the
// OpenAPI document.
const (
	MaxPassengers       = 9
	MaxNameLength       = 100 // characters, for first_name and last_name
	MaxReferenceLength  = 64  // characters, for partner_reference
	MaxEmailLength      = 254
	MaxServiceDaysAhead = 366
)

var (
	// flightNumber is an IATA designator: two-character airline code, 1–4 digits and
	// an optional operational suffix, upper case, no space ("HY601", "TK1234A").
	flightNumber   = regexp.MustCompile(`^[A-Z0-9]{2}[0-9]{1,4}[A-Z]?$`)
	passportNumber = regexp.MustCompile(`^[A-Z0-9]{5,20}$`)
	nationality    = regexp.MustCompile(`^[A-Z]{2}$`)
	phoneE164      = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	earliestBirth  = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Fields of the request objects; any other field is CodeBadRequest.
var (
	requestFields   = []string{"fast_track_id", "service_date", "flight", "passengers", "partner_reference"}
	flightFields    = []string{"number", "direction"}
	passengerFields = []string{"first_name", "last_name", "date_of_birth", "passport_number", "nationality", "email", "phone"}
)

// parser walks a decoded request, collecting unknown fields (400) and invalid ones
// (422) by their JSON path, e.g. passengers[0].last_name.
type parser struct {
	unknown []skygate.FieldError
	invalid []skygate.FieldError
}

// fail records the first problem of a field; later ones (a wrong type, then
// "is required") would only repeat it.
func (p *parser) fail(path, message string) {
	if !slices.ContainsFunc(p.invalid, func(f skygate.FieldError) bool { return f.Field == path }) {
		p.invalid = append(p.invalid, skygate.FieldError{Field: path, Message: message})
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// object returns v as an object, recording fields not in allowed as unknown; nil and
// a failure when v is not an object.
func (p *parser) object(v any, path string, allowed []string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "must be an object")
		return nil
	}
	for k := range m {
		if !slices.Contains(allowed, k) {
			p.unknown = append(p.unknown, skygate.FieldError{Field: join(path, k), Message: "unknown field"})
		}
	}
	slices.SortFunc(p.unknown, func(a, b skygate.FieldError) int { return strings.Compare(a.Field, b.Field) })
	return m
}

// str returns the string field name of m; "" for an absent or null field, and "" with
// a failure for a value of another type.
func (p *parser) str(m map[string]any, path, name string) string {
	switch v := m[name].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		p.fail(join(path, name), "must be a string")
		return ""
	}
}

// parse validates a decoded create request against the fast-track and returns the
// booking it asks for (without id, account, status or times).
func (s *Service) parse(doc any, now time.Time) (*skygate.Booking, error) {
	p := &parser{}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, skygate.Errorf(skygate.CodeBadRequest, "the body must be a JSON object")
	}
	p.object(root, "", requestFields)
	b := &skygate.Booking{}

	required := map[skygate.BookingInfo]bool{}
	b.FastTrackID = p.str(root, "", "fast_track_id")
	if b.FastTrackID == "" {
		p.fail("fast_track_id", "is required")
	} else if info, active, ok := s.fastTracks.FastTrackInfo(b.FastTrackID); !ok {
		p.fail("fast_track_id", "no fast-track has this id")
	} else if !active {
		p.fail("fast_track_id", "the fast-track is not active")
	} else {
		for _, i := range info {
			required[skygate.BookingInfo(i)] = true
		}
	}

	b.ServiceDate = p.str(root, "", "service_date")
	p.serviceDate(b.ServiceDate, now.In(s.zone(b.FastTrackID)))
	b.Flight = p.flight(root["flight"], required[skygate.InfoFlightNumber])
	b.Passengers = p.passengers(root["passengers"], required, now)

	b.PartnerReference = p.str(root, "", "partner_reference")
	if n := utf8.RuneCountInString(b.PartnerReference); n > MaxReferenceLength {
		p.fail("partner_reference", fmt.Sprintf("must be at most %d characters", MaxReferenceLength))
	} else if hasControl(b.PartnerReference) {
		p.fail("partner_reference", "must not contain control characters")
	}

	if len(p.unknown) > 0 {
		return nil, &skygate.Error{Code: skygate.CodeBadRequest,
			Message: "the body has unknown fields: " + fieldList(p.unknown), Fields: p.unknown}
	}
	if len(p.invalid) > 0 {
		return nil, skygate.ValidationError(p.invalid...)
	}
	return b, nil
}

// serviceDate checks the service day against today at the airport (local is now in
// the hub's zone): not in the past, at most MaxServiceDaysAhead ahead.
func (p *parser) serviceDate(v string, local time.Time) {
	if v == "" {
		p.fail("service_date", "is required")
		return
	}
	day, ok := parseDate(v)
	if !ok {
		p.fail("service_date", "must be a date in the form YYYY-MM-DD")
		return
	}
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	switch {
	case day.Before(today):
		p.fail("service_date", "must not be in the past (the airport's local date is "+today.Format(time.DateOnly)+")")
	case day.After(today.AddDate(0, 0, MaxServiceDaysAhead)):
		p.fail("service_date", fmt.Sprintf("must be at most %d days ahead", MaxServiceDaysAhead))
	}
}

func (p *parser) flight(v any, numberRequired bool) skygate.Flight {
	var f skygate.Flight
	if v == nil {
		p.fail("flight", "is required")
		return f
	}
	m := p.object(v, "flight", flightFields)
	if m == nil {
		return f
	}
	f.Number = p.str(m, "flight", "number")
	switch {
	case f.Number == "" && numberRequired:
		p.fail("flight.number", "is required by this fast-track")
	case f.Number != "" && !flightNumber.MatchString(f.Number):
		p.fail("flight.number", "must be an IATA flight number such as HY601 (upper case, no spaces)")
	}
	f.Direction = skygate.FlightDirection(p.str(m, "flight", "direction"))
	switch f.Direction {
	case skygate.FlightDeparture, skygate.FlightArrival:
	case "":
		p.fail("flight.direction", "is required")
	default:
		p.fail("flight.direction", "must be departure or arrival")
	}
	return f
}

func (p *parser) passengers(v any, required map[skygate.BookingInfo]bool, now time.Time) []skygate.Passenger {
	list, ok := v.([]any)
	switch {
	case v == nil:
		p.fail("passengers", "is required")
		return nil
	case !ok:
		p.fail("passengers", "must be an array")
		return nil
	case len(list) < 1 || len(list) > MaxPassengers:
		p.fail("passengers", fmt.Sprintf("must list 1 to %d passengers", MaxPassengers))
		return nil
	}
	out := make([]skygate.Passenger, 0, len(list))
	for i, item := range list {
		path := fmt.Sprintf("passengers[%d]", i)
		m := p.object(item, path, passengerFields)
		if m == nil {
			continue
		}
		pass := skygate.Passenger{
			FirstName:      p.str(m, path, "first_name"),
			LastName:       p.str(m, path, "last_name"),
			DateOfBirth:    p.str(m, path, "date_of_birth"),
			PassportNumber: p.str(m, path, "passport_number"),
			Nationality:    p.str(m, path, "nationality"),
			Email:          p.str(m, path, "email"),
			Phone:          p.str(m, path, "phone"),
		}
		p.check(path+".first_name", pass.FirstName, required[skygate.InfoName], validName)
		p.check(path+".last_name", pass.LastName, required[skygate.InfoName], validName)
		p.check(path+".date_of_birth", pass.DateOfBirth, required[skygate.InfoDateOfBirth], birthDate(now))
		p.check(path+".passport_number", pass.PassportNumber, required[skygate.InfoPassportNumber],
			pattern(passportNumber, "must be 5 to 20 upper-case letters and digits"))
		p.check(path+".nationality", pass.Nationality, required[skygate.InfoNationality],
			pattern(nationality, "must be an ISO 3166-1 alpha-2 country code in upper case"))
		p.check(path+".email", pass.Email, required[skygate.InfoEmail], validEmail)
		p.check(path+".phone", pass.Phone, required[skygate.InfoPhone],
			pattern(phoneE164, "must be an E.164 number such as +998901234567"))
		out = append(out, pass)
	}
	return out
}

// check records "is required" for a missing required value, and the validator's
// message for an invalid present one.
func (p *parser) check(path, v string, required bool, valid func(string) string) {
	switch {
	case v == "" && required:
		p.fail(path, "is required by this fast-track")
	case v != "":
		if msg := valid(v); msg != "" {
			p.fail(path, msg)
		}
	}
}

func validName(v string) string {
	switch {
	case strings.TrimSpace(v) == "":
		return "must not be blank"
	case utf8.RuneCountInString(v) > MaxNameLength:
		return fmt.Sprintf("must be at most %d characters", MaxNameLength)
	case hasControl(v):
		return "must not contain control characters"
	}
	return ""
}

func birthDate(now time.Time) func(string) string {
	return func(v string) string {
		d, ok := parseDate(v)
		switch {
		case !ok:
			return "must be a date in the form YYYY-MM-DD"
		case d.Before(earliestBirth) || d.After(now):
			return "must be a past date after 1900-01-01"
		}
		return ""
	}
}

func validEmail(v string) string {
	a, err := mail.ParseAddress(v)
	if err != nil || a.Address != v || len(v) > MaxEmailLength {
		return "must be an email address such as name@example.com"
	}
	return ""
}

func pattern(re *regexp.Regexp, message string) func(string) string {
	return func(v string) string {
		if !re.MatchString(v) {
			return message
		}
		return ""
	}
}

// parseDate parses YYYY-MM-DD strictly (time.DateOnly demands the zero padding).
func parseDate(v string) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, v)
	return d, err == nil && len(v) == len(time.DateOnly)
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

func fieldList(fields []skygate.FieldError) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Field
	}
	return strings.Join(names, ", ")
}
