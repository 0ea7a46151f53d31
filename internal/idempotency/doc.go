// Package idempotency owns the Idempotency-Key mechanism that every idempotent route
// shares (create-booking, eSIM orders and top-ups): the form of a key, the fingerprint
// of a request, the record that stores the answer for Lifetime, and the replay rule.
//
// A key is scoped to the account and the operation. The first accepted request with a
// key stores a record in the same transaction as what it creates (the store's job);
// a later request with the key and the same fingerprint is answered from that record
// (a replay), one with another fingerprint is CodeIdempotencyConflict. A request that
// is rejected does not use up its key, and a known key is answered from its record
// whatever the request now holds: the key decides before the body is judged again.
//
// The package knows no transport: the services call it with typed commands, and the
// HTTP layer reads the key from its header and renders replays.
package idempotency
