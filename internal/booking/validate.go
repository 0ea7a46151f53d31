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

// validation collects the invalid fields of a request by their JSON path, e.g.
// passengers[0].last_name, in the order of the request.
type validation []skygate.FieldError

func (v *validation) fail(path, message string) {
	*v = append(*v, skygate.FieldError{Field: path, Message: message})
}

// validate checks a create request against the fast-track and returns the booking it
// asks for (without id, account, status or times).
func (s *Service) validate(r Request, now time.Time) (*skygate.Booking, error) {
	var v validation
	b := &skygate.Booking{FastTrackID: r.FastTrackID, ServiceDate: r.ServiceDate, PartnerReference: r.PartnerReference}

	required := map[skygate.BookingInfo]bool{}
	known := false
	if b.FastTrackID == "" {
		v.fail("fast_track_id", "is required")
	} else if info, active, ok := s.fastTracks.FastTrackInfo(b.FastTrackID); !ok {
		v.fail("fast_track_id", "no fast-track has this id")
	} else if !active {
		v.fail("fast_track_id", "the fast-track is not active")
	} else {
		known = true
		for _, i := range info {
			required[skygate.BookingInfo(i)] = true
		}
	}

	// A scheduled time moves the fast-track's notice from the service day's start to
	// itself (schedule).
	scheduled := r.Flight != nil && r.Flight.ScheduledAt != ""
	var notice time.Duration
	if d, ok := s.fastTracks.FastTrackNotice(b.FastTrackID); ok && !scheduled {
		notice = d
	}
	v.serviceDate(b.ServiceDate, now.In(s.zone(b.FastTrackID)), notice)
	if r.Flight == nil {
		v.fail("flight", "is required")
	} else {
		b.Flight = *r.Flight
		v.flight(b.Flight, required[skygate.InfoFlightNumber])
	}
	b.Passengers = slices.Clone(r.Passengers)
	v.passengers(b.Passengers, required, now)
	if scheduled && known {
		s.schedule(&v, b, s.zone(b.FastTrackID), now)
	}

	if n := utf8.RuneCountInString(b.PartnerReference); n > MaxReferenceLength {
		v.fail("partner_reference", fmt.Sprintf("must be at most %d characters", MaxReferenceLength))
	} else if hasControl(b.PartnerReference) {
		v.fail("partner_reference", "must not contain control characters")
	}

	if len(v) > 0 {
		return nil, skygate.ValidationError(v...)
	}
	return b, nil
}

// serviceDate checks the service day against today at the airport (local is now in
// the hub's zone): not in the past, at most MaxServiceDaysAhead ahead, and starting at
// least notice after local (the fast-track's booking_before_hours; 0 for none).
func (v *validation) serviceDate(date string, local time.Time, notice time.Duration) {
	if date == "" {
		v.fail("service_date", "is required")
		return
	}
	day, ok := parseDate(date)
	if !ok {
		v.fail("service_date", "must be a date in the form YYYY-MM-DD")
		return
	}
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	switch {
	case day.Before(today):
		v.fail("service_date", "must not be in the past (the airport's local date is "+today.Format(time.DateOnly)+")")
	case day.After(today.AddDate(0, 0, MaxServiceDaysAhead)):
		v.fail("service_date", fmt.Sprintf("must be at most %d days ahead", MaxServiceDaysAhead))
	case notice > 0:
		start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, local.Location())
		if earliest := local.Add(notice); start.Before(earliest) {
			first := time.Date(earliest.Year(), earliest.Month(), earliest.Day(), 0, 0, 0, 0, local.Location())
			if first.Before(earliest) {
				first = first.AddDate(0, 0, 1)
			}
			v.fail("service_date", fmt.Sprintf("must start at least %g hours after the booking (the fast-track's booking_before_hours); the earliest service date now is %s",
				notice.Hours(), first.Format(time.DateOnly)))
		}
	}
}

func (v *validation) flight(f skygate.Flight, numberRequired bool) {
	switch {
	case f.Number == "" && numberRequired:
		v.fail("flight.number", "is required by this fast-track")
	case f.Number != "" && !flightNumber.MatchString(f.Number):
		v.fail("flight.number", "must be an IATA flight number such as HY601 (upper case, no spaces)")
	}
	switch f.Direction {
	case skygate.FlightDeparture, skygate.FlightArrival:
	case "":
		v.fail("flight.direction", "is required")
	default:
		v.fail("flight.direction", "must be departure or arrival")
	}
}

// passengers checks the passengers and resolves each one's type in place (adult when
// not sent).
func (v *validation) passengers(list []skygate.Passenger, required map[skygate.BookingInfo]bool, now time.Time) {
	switch {
	case list == nil:
		v.fail("passengers", "is required")
		return
	case len(list) < 1 || len(list) > MaxPassengers:
		v.fail("passengers", fmt.Sprintf("must list 1 to %d passengers", MaxPassengers))
		return
	}
	for i, pass := range list {
		path := fmt.Sprintf("passengers[%d]", i)
		switch {
		case pass.Type == "":
			list[i].Type = skygate.PassengerAdult
		case !pass.Type.IsValid():
			v.fail(path+".type", "must be one of adult, child, infant")
		}
		v.check(path+".first_name", pass.FirstName, required[skygate.InfoName], validName)
		v.check(path+".last_name", pass.LastName, required[skygate.InfoName], validName)
		v.check(path+".date_of_birth", pass.DateOfBirth, required[skygate.InfoDateOfBirth], birthDate(now))
		v.check(path+".passport_number", pass.PassportNumber, required[skygate.InfoPassportNumber],
			pattern(passportNumber, "must be 5 to 20 upper-case letters and digits"))
		v.check(path+".nationality", pass.Nationality, required[skygate.InfoNationality],
			pattern(nationality, "must be an ISO 3166-1 alpha-2 country code in upper case"))
		v.check(path+".email", pass.Email, required[skygate.InfoEmail], validEmail)
		v.check(path+".phone", pass.Phone, required[skygate.InfoPhone],
			pattern(phoneE164, "must be an E.164 number such as +998901234567"))
	}
}

// check records "is required" for a missing required value, and the validator's
// message for an invalid present one.
func (v *validation) check(path, value string, required bool, valid func(string) string) {
	switch {
	case value == "" && required:
		v.fail(path, "is required by this fast-track")
	case value != "":
		if msg := valid(value); msg != "" {
			v.fail(path, msg)
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
