package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skygate/skygate"
)

// Interval is an opening interval of one day in minutes after local midnight; End is
// after Start and at most 1440.
type Interval struct {
	Start, End int
}

// ParseHours returns the opening intervals of one business-hours item: none for
// CLOSED, the whole day for 24H, and the parsed Detail for STANDARD. It rejects a Detail
// that does not follow the format its type documents (skygate.HoursType).
func ParseHours(t skygate.BusinessHoursTimes) ([]Interval, error) {
	switch t.Type {
	case skygate.HoursClosed:
		if t.Detail != "" {
			return nil, errors.New(`must be "" when type is CLOSED`)
		}
		return nil, nil
	case skygate.Hours24H:
		if t.Detail != "00:00-24:00" {
			return nil, errors.New(`must be "00:00-24:00" when type is 24H`)
		}
		return []Interval{{0, 1440}}, nil
	case skygate.HoursStandard:
		return parseIntervals(t.Detail)
	default:
		return nil, fmt.Errorf("unknown type %q", t.Type)
	}
}

// parseIntervals parses "HH:MM-HH:MM[,HH:MM-HH:MM…]", ascending and separated by gaps.
func parseIntervals(detail string) ([]Interval, error) {
	if detail == "" {
		return nil, errors.New(`must list intervals such as "06:00-23:00" when type is STANDARD`)
	}
	parts := strings.Split(detail, ",")
	if len(parts) > 8 {
		return nil, errors.New("must list at most 8 intervals")
	}
	out := make([]Interval, 0, len(parts))
	for _, p := range parts {
		from, to, ok := strings.Cut(p, "-")
		start, ok1 := clock(from)
		end, ok2 := clock(to)
		if !ok || !ok1 || !ok2 {
			return nil, fmt.Errorf(`%q is not an interval "HH:MM-HH:MM"`, p)
		}
		if start >= end || start == 1440 {
			return nil, fmt.Errorf("%q must end after it starts, on the same day", p)
		}
		if n := len(out); n > 0 && start <= out[n-1].End {
			return nil, fmt.Errorf("%q must start after the previous interval ends", p)
		}
		out = append(out, Interval{start, end})
	}
	if len(out) == 1 && out[0] == (Interval{0, 1440}) {
		return nil, errors.New("a whole day is type 24H")
	}
	return out, nil
}

// clock parses "HH:MM" (00:00–24:00) into minutes.
func clock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	for _, i := range []int{0, 1, 3, 4} {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	if h > 24 || m > 59 || (h == 24 && m != 0) {
		return 0, false
	}
	return h*60 + m, true
}

// hours checks that business hours list days 1–7 once each, in order.
func (v *validator) hours(field string, hs []skygate.BusinessHours) {
	if len(hs) != 7 {
		v.add(field, "must list the seven days 1 (Monday) to 7 (Sunday)")
	}
	for i, h := range hs {
		p := fmt.Sprintf("%s[%d]", field, i)
		if h.Day != i+1 {
			v.add(p+".day", fmt.Sprintf("must be %d: days are listed once each from 1 (Monday) to 7 (Sunday)", i+1))
		}
		if !slices.Contains(skygate.HoursTypes, h.Times.Type) {
			enum(v, p+".times.type", h.Times.Type, skygate.HoursTypes)
			continue
		}
		if _, err := ParseHours(h.Times); err != nil {
			v.add(p+".times.detail", err.Error())
		}
	}
}
