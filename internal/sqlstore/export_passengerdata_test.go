package sqlstore

// PassengerDataScans maps each partial index of migration sqlite 00010 / postgres
// 00011 (passenger_data) to the worker's statement it must serve ("?" placeholders,
// no locking clause) and that statement's arguments but a leading time, if any.
var PassengerDataScans = map[string]struct {
	Query    string
	WithTime bool
	Args     []any
}{
	"bookings_passenger_data_due":  {erasePassengerData + `)`, true, []any{"2025-01-01", 1}},
	"bookings_passengers_unsealed": {unsealedBookings, false, []any{1}},
	"idempotency_records_unsealed": {unsealedRecords, false, []any{1}},
}
