package sqlstore

import "github.com/skygate/skygate"

// flightCol, passengersCol and historyCol scan a booking's JSON text columns (flight,
// passengers, status_history) with encoding/json, as jsonCol does; both engines store
// them as text.
type (
	flightCol     struct{ f *skygate.Flight }
	passengersCol struct{ p *[]skygate.Passenger }
	historyCol    struct{ h *[]skygate.StatusChange }
)

func (c flightCol) Scan(src any) error     { return jsonCol{c.f}.Scan(src) }
func (c passengersCol) Scan(src any) error { return jsonCol{c.p}.Scan(src) }
func (c historyCol) Scan(src any) error    { return jsonCol{c.h}.Scan(src) }
