package skygate

import (
	"context"
	"time"
)

// The store contracts of an eSIM after its sale (esimcare.go). They follow
// ESIMStore's rules: every method takes the account id and treats another account's
// eSIM as CodeNotFound, and every write is one transaction with its events.

// ESIMCancelStore cancels and refunds unused eSIMs.
type ESIMCancelStore interface {
	// CancelESIM changes the account's eSIM at now with apply as UpdateESIM does
	// (apply calls ESIM.Cancel), and, when apply moved it into Canceled, refunds in
	// the same transaction what was paid for it: the unit price of its order and the
	// price of each of its top-ups, each credited to the balance in its currency with
	// a refund line (LedgerEntry.ICCID the eSIM, Reference the order or top-up id) and
	// a HistoryRefunded entry of the amount refunded. It never refunds more than was
	// paid on a reference: each payment's refund is min(share, paid − refunded), where
	// share is the unit price or the top-up's price, paid the order's total or the
	// top-up's price, and refunded the sum of the account's LedgerRefund lines with
	// that Reference in that currency (earlier cancels of the order's eSIMs and
	// CreditBalance refunds alike), read while the balance row is locked so that a
	// concurrent refund is counted; a refund of zero or less writes no line. The
	// eSIM's row is locked before the balances, the order of locks of a top-up. A
	// Canceled eSIM that apply leaves as it is writes nothing and is returned as it
	// is. It returns the eSIM as written.
	CancelESIM(ctx context.Context, accountID, iccid string, now time.Time, apply ESIMApply) (*ESIM, error)
}

// ESIMHistoryStore reads the history of an eSIM, which the eSIM writes (the order,
// top-ups, CancelESIM and every change through ESIMApply: ESIMChangeHistory) append
// to in their own transactions.
type ESIMHistoryStore interface {
	// ESIMHistory returns a page of the history of the account's eSIM, oldest first,
	// and the total, or CodeNotFound when the eSIM is not the account's.
	ESIMHistory(ctx context.Context, accountID, iccid string, p Page) ([]*ESIMHistoryEntry, int, error)
}

// ESIMSettingsStore keeps an account's eSIM settings.
type ESIMSettingsStore interface {
	// ESIMSettings returns the account's settings: DefaultUsageThresholds when it never
	// set them.
	ESIMSettings(ctx context.Context, accountID string) (*ESIMSettings, error)
	// SetESIMSettings replaces the account's settings (validated by the caller) at now
	// and returns them as stored. An unknown account is CodeNotFound.
	SetESIMSettings(ctx context.Context, accountID string, s *ESIMSettings, now time.Time) (*ESIMSettings, error)
}

// ESIMWarningStore finds the eSIMs whose expiry warning is due.
type ESIMWarningStore interface {
	// WarnExpiringESIMs calls apply at now for eSIMs of every account whose expiry
	// warning is due (ESIM.DueExpiryWarning, with the windows of ESIMExpiryWarnings),
	// each in its own transaction, until limit were changed (no limit when
	// limit <= 0) or none is due, and returns how many were changed. apply must record
	// the warning (ESIM.WarnExpiry); an eSIM whose change fails is skipped as in
	// ESIMStore.ExpireESIMs, and the error names it. Concurrent callers, on one
	// replica or many, never warn one eSIM twice for one warning.
	WarnExpiringESIMs(ctx context.Context, now time.Time, limit int, apply ESIMApply) (int, error)
}
