package sqlite

import "github.com/skygate/skygate/internal/sqlstore"

// commerce is the store's steps of a booking's commercial side (sqlstore.Commerce),
// run by CreateBooking and by every transition.
func (s *Store) commerce() sqlstore.Commerce {
	return sqlstore.Commerce{
		UseQuote: s.useQuote, ReserveFunds: s.reserveFunds, TakeSlot: s.takeSlot,
		MoveFunds: s.moveFunds, ReturnSlot: s.returnSlot,
	}
}
