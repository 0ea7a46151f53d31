package skygate

// This file writes a booking's JSON form, and the data of its events, without
// encoding/json's reflection. A booking is encoded three times on its way from a
// create request to Issued (the stored answer to its Idempotency-Key and the two
// booking.status.changed events), and reflection was most of that work.

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the JSON form of b (the partner-facing resource, as its struct
// tags describe it) to dst: byte for byte what encoding/json writes for it, nil lists
// as null included. It fails only for a time that JSON cannot carry (a year outside
// 0–9999), as encoding/json does.
func (b *Booking) AppendJSON(dst []byte) ([]byte, error) {
	var err error
	dst = appendJSONField(dst, '{', "id", b.ID)
	dst = appendJSONField(dst, ',', "status", string(b.Status))
	dst = appendJSONField(dst, ',', "fast_track_id", b.FastTrackID)
	dst = appendJSONField(dst, ',', "service_date", b.ServiceDate)
	dst = b.Flight.AppendJSON(append(dst, `,"flight":`...))
	dst = AppendPassengersJSON(append(dst, `,"passengers":`...), b.Passengers)
	dst = appendJSONField(dst, ',', "partner_reference", b.PartnerReference)
	dst = append(dst, `,"confirm_before":`...)
	if b.ConfirmBefore == nil {
		dst = append(dst, "null"...)
	} else if dst, err = appendJSONTime(dst, *b.ConfirmBefore); err != nil {
		return nil, err
	}
	dst = append(dst, `,"created_at":`...)
	if dst, err = appendJSONTime(dst, b.CreatedAt); err != nil {
		return nil, err
	}
	dst = append(dst, `,"updated_at":`...)
	if dst, err = appendJSONTime(dst, b.UpdatedAt); err != nil {
		return nil, err
	}
	if dst, err = AppendStatusHistoryJSON(append(dst, `,"status_history":`...), b.StatusHistory); err != nil {
		return nil, err
	}
	dst = append(dst, `,"personal_data_removed_at":`...)
	if b.PersonalDataRemovedAt == nil {
		dst = append(dst, "null"...)
	} else if dst, err = appendJSONTime(dst, *b.PersonalDataRemovedAt); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (b *Booking) MarshalJSON() ([]byte, error) { return b.AppendJSON(make([]byte, 0, 768)) }

// AppendJSON appends f's JSON form to dst, as encoding/json writes it.
func (f Flight) AppendJSON(dst []byte) []byte {
	dst = appendJSONField(dst, '{', "number", f.Number)
	return append(appendJSONField(dst, ',', "direction", string(f.Direction)), '}')
}

// AppendStatusHistoryJSON appends h as a JSON array (null when nil) to dst, as
// encoding/json writes it; it fails as AppendJSON does for a time out of range.
func AppendStatusHistoryJSON(dst []byte, h []StatusChange) ([]byte, error) {
	if h == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, c := range h {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONField(dst, '{', "status", string(c.Status))
		var err error
		if dst, err = appendJSONTime(append(dst, `,"at":`...), c.At); err != nil {
			return nil, err
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// AppendPassengersJSON appends ps as a JSON array (null when nil) to dst, as
// encoding/json writes it: the optional fields that are empty are left out, as their
// omitempty tags say.
func AppendPassengersJSON(dst []byte, ps []Passenger) []byte {
	if ps == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range ps {
		p := &ps[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONField(dst, '{', "first_name", p.FirstName)
		dst = appendJSONField(dst, ',', "last_name", p.LastName)
		for _, f := range [...]struct{ name, value string }{
			{"date_of_birth", p.DateOfBirth}, {"passport_number", p.PassportNumber},
			{"nationality", p.Nationality}, {"email", p.Email}, {"phone", p.Phone},
		} {
			if f.value != "" {
				dst = appendJSONField(dst, ',', f.name, f.value)
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendJSONField appends sep, then name (plain ASCII, which needs no escaping) as a
// key with value as its JSON string.
func appendJSONField(dst []byte, sep byte, name, value string) []byte {
	dst = append(dst, sep, '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return appendJSONString(dst, value)
}

// appendJSONString appends s as encoding/json writes a string (with its HTML
// escaping). A string that encoding/json copies as it is (valid UTF-8 without control
// characters, quotes, backslashes, <, >, & and the two line separators it escapes),
// which is what a booking's names, Latin or Cyrillic, nearly always are, is copied
// here too; any other goes through encoding/json, so the two never differ.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return appendMarshalled(dst, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return appendMarshalled(dst, s)
		}
		i += size
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendMarshalled appends s as encoding/json writes it.
func appendMarshalled(dst []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(dst, q...)
}

// appendJSONTime appends t as time.Time's MarshalJSON writes it (RFC 3339 with the
// nanoseconds it has), failing where that fails.
func appendJSONTime(dst []byte, t time.Time) ([]byte, error) {
	dst = append(dst, '"')
	dst, err := t.AppendText(dst)
	if err != nil {
		return nil, err
	}
	return append(dst, '"'), nil
}
