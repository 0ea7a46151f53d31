package skygate

import "encoding/json"

// A booking and its parts are encoded by encoding/json from their struct tags. The
// helpers below append those encodings for the stores, which keep a booking's flight,
// passengers and status history as JSON.

// AppendJSON appends the JSON form of b, the partner-facing resource, to dst. It fails
// only for a time that JSON cannot carry (a year outside 0–9999).
func (b *Booking) AppendJSON(dst []byte) ([]byte, error) {
	return appendMarshalled(dst, b)
}

// AppendJSON appends f's JSON form to dst.
func (f Flight) AppendJSON(dst []byte) []byte {
	dst, _ = appendMarshalled(dst, f) // strings only: cannot fail
	return dst
}

// AppendStatusHistoryJSON appends h as a JSON array (null when nil) to dst; it fails
// as Booking.AppendJSON does for a time out of range.
func AppendStatusHistoryJSON(dst []byte, h []StatusChange) ([]byte, error) {
	return appendMarshalled(dst, h)
}

// AppendPassengersJSON appends ps as a JSON array (null when nil) to dst, the empty
// optional fields left out.
func AppendPassengersJSON(dst []byte, ps []Passenger) []byte {
	dst, _ = appendMarshalled(dst, ps) // strings only: cannot fail
	return dst
}

func appendMarshalled(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}
