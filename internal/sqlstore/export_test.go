package sqlstore

// DueBookingClaims maps each partial index of migration 00008 (bookings_due_indexes)
// to the worker's claim statement it must serve ("?" placeholders, no locking clause).
var DueBookingClaims = map[string]string{
	"bookings_pending_created":       claimPending,
	"bookings_issued_confirm_before": claimIssued,
}

// Rebind is rebind, for the engines' query-plan tests.
var Rebind = rebind

// PoolAllocation is the statement that takes an order's profiles from the pool
// ("?" placeholders, no locking clause).
var PoolAllocation = registry[qAllocateProfiles]
