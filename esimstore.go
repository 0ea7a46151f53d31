package skygate

import (
	"context"
	"time"
)

// ESIMFilter narrows a list of eSIMs; empty fields do not filter.
type ESIMFilter struct {
	Status  ESIMStatus
	OrderID string
}

// ESIMOrderApply is called by the store inside an order's transaction once the profiles
// are allocated, before the balance is debited: o.ESIMs holds the new eSIMs (ICCID,
// status Assigned, usage, sealed matching ID). It returns the events to insert in the
// same transaction. An error from it aborts the order and is returned as is.
type ESIMOrderApply func(o *ESIMOrder) ([]*Event, error)

// ESIMApply is called by the store inside the transaction of an eSIM change. before is
// the eSIM as read (its row locked on engines with concurrent writers); after is a
// copy that apply changes. Only Status, Usage, ValidityDays, InstalledAt, ActivatedAt,
// ExpiresAt and NotifiedThresholds of after are written; UpdatedAt is set by the store.
// It returns the events to insert in the same transaction. An error from it aborts the
// change and is returned as is.
type ESIMApply func(before, after *ESIM) ([]*Event, error)

// ESIMStore keeps the eSIM side of every account: packages, the profile pool, orders,
// eSIMs, top-ups and the prepaid balances with their ledger. Every method takes the
// account id and treats another account's package, order or eSIM as CodeNotFound. An
// order and a top-up are each one transaction that claims the idempotency key, debits
// the balance, writes what was bought and inserts the events into the outbox (the same
// idempotency records and events as bookings), so that a failure leaves nothing behind.
// Times are normalised to the stored precision (UTC, microseconds). The admin writes
// (packages, pool, credits) commit the audit record they take (required) in their
// own transaction.
type ESIMStore interface {
	// SetESIMPackages upserts pkgs (by ID) as packages of the account at now and
	// increases the account's catalog version, in one transaction; packages not in
	// pkgs are left as they are (an admin retires one by sending it with Active false).
	// A new package gets CreatedAt now; every package in pkgs gets UpdatedAt now. An ID
	// that belongs to another account is CodeConflict; an unknown account CodeNotFound.
	// A nil RefundWindowDays keeps an existing package's window and gives a new one
	// DefaultRefundWindowDays; every other field, APN among them, is replaced as given.
	// It returns the catalog after the change.
	SetESIMPackages(ctx context.Context, accountID string, pkgs []*ESIMPackage, now time.Time, audit *AuditEvent) (*ESIMCatalog, error)
	// ESIMCatalog returns the account's packages, active or not, in the order of
	// ESIMCatalog.Packages, with the
	// catalog version; an account with no packages has Version 0 and no packages.
	ESIMCatalog(ctx context.Context, accountID string) (*ESIMCatalog, error)
	// ESIMPackage returns the account's package, active or not, or CodeNotFound.
	ESIMPackage(ctx context.Context, accountID, packageID string) (*ESIMPackage, error)

	// ImportPoolProfiles adds profiles (status Available, ImportedAt set by the caller)
	// to the account's pool, all or nothing. Every ICCID that is already in any
	// account's pool, or repeated within profiles, is reported as a CodeValidation
	// FieldError named "[i].iccid" (i the index in profiles), and then nothing is
	// imported. A concurrent import of the same ICCID cannot slip through: uniqueness is
	// the table's primary key. An unknown account is CodeNotFound.
	ImportPoolProfiles(ctx context.Context, accountID string, profiles []*PoolProfile, audit *AuditEvent) error
	// PoolCounts counts the account's pool profiles by status.
	PoolCounts(ctx context.Context, accountID string) (*PoolCounts, error)

	// CreateESIMOrder places o (ID, PackageID, Quantity, UnitPrice, Total, CreatedAt and
	// the rest set by the caller; Status becomes Completed) in one transaction:
	//
	//  1. claims rec's key as CreateBooking does: when the account holds an unexpired
	//     record for the operation and key (written earlier or by a concurrent call,
	//     whose commit it waits for), nothing is written and the stored record is
	//     returned for the caller to compare fingerprints; an expired one is replaced;
	//  2. reads the account's balance in o.Total's currency: one that does not cover
	//     o.Total is CodeInsufficientFunds (a zero total needs none);
	//  3. takes o.Quantity Available profiles of the account's pool, oldest import
	//     first among those no concurrent order holds, else CodePoolExhausted; on
	//     PostgreSQL with FOR UPDATE SKIP LOCKED, so concurrent orders never get one
	//     profile twice, and an order that finds the pool short waits for the orders
	//     holding profiles to end before it answers CodePoolExhausted;
	//  4. marks them Assigned, inserts the order and its eSIMs (status Assigned, usage
	//     from the package, ValidityDays from the package) and the events apply returns;
	//  5. last, debits o.Total only if the balance still covers it, else
	//     CodeInsufficientFunds (a concurrent order spent it since step 2), and appends
	//     a charge referencing the order to the ledger; a debit across the account's
	//     low-balance threshold also writes billing.balance.low (BalanceLowEvents).
	//
	// It returns (nil, nil) when it wrote; then o.ESIMs holds the eSIMs by ICCID. A
	// package that is not the account's is CodeNotFound. Funds are checked before the
	// pool, so an order that fails both is CodeInsufficientFunds unless a concurrent
	// order changes the balance meanwhile. Because the debit comes last, an order that
	// fails there gives back profiles that concurrent younger orders may have passed
	// over: the pool is oldest-first for orders one after the other, not strictly so
	// between concurrent ones. Concurrent orders never oversell the pool nor take the
	// balance below zero, and each is all or nothing.
	CreateESIMOrder(ctx context.Context, rec *IdempotencyRecord, o *ESIMOrder, apply ESIMOrderApply) (replay *IdempotencyRecord, err error)
	// ESIMOrder returns the account's order with its eSIMs (by ICCID), or CodeNotFound.
	ESIMOrder(ctx context.Context, accountID, orderID string) (*ESIMOrder, error)
	// ListESIMOrders returns a page of the account's orders with their eSIMs, newest
	// first, and the total.
	ListESIMOrders(ctx context.Context, accountID string, p Page) ([]*ESIMOrder, int, error)

	// ESIM returns the account's eSIM or CodeNotFound.
	ESIM(ctx context.Context, accountID, iccid string) (*ESIM, error)
	// ListESIMs returns a page of the account's eSIMs matching f, newest first (by
	// order, then ICCID), and the total.
	ListESIMs(ctx context.Context, accountID string, f ESIMFilter, p Page) ([]*ESIM, int, error)
	// UpdateESIM changes the account's eSIM at now with apply in one transaction (see
	// ESIMApply) and returns it as written, or CodeNotFound. Concurrent updates of one
	// eSIM are serialised, each seeing the result of the one before.
	UpdateESIM(ctx context.Context, accountID, iccid string, now time.Time, apply ESIMApply) (*ESIM, error)
	// ExpireESIMs calls apply at now for due eSIMs of every account, each in its own
	// transaction, until limit were changed (no limit when limit <= 0) or none is due,
	// and returns how many were changed. An eSIM is due when it is Active or Depleted
	// and its ExpiresAt is at or before now; apply must move it out of those statuses
	// (ESIM.Expire does). An eSIM whose change fails (apply refuses it, or leaves it
	// due) is left as it was and skipped for the rest of the call, which goes on with
	// the others and then returns, beside the count, an error naming each such eSIM.
	// Concurrent callers never change one eSIM twice.
	ExpireESIMs(ctx context.Context, now time.Time, limit int, apply ESIMApply) (int, error)
	// TopUpESIM applies t (ID, ICCID, PackageID, Price, CreatedAt set by the caller) in
	// one transaction: it claims rec's key as CreateESIMOrder does, reads the account's
	// eSIM t.ICCID (CodeNotFound), checks that the balance covers t.Price
	// (CodeInsufficientFunds), calls apply, writes the eSIM, the top-up and the events,
	// and last debits t.Price (CodeInsufficientFunds when a concurrent charge spent the
	// balance meanwhile) with a charge on the ledger referencing the top-up, and
	// billing.balance.low when the debit crosses the threshold. It returns
	// (nil, nil) when it wrote; then t.ESIM is the eSIM after the top-up.
	TopUpESIM(ctx context.Context, rec *IdempotencyRecord, t *TopUp, apply ESIMApply) (replay *IdempotencyRecord, err error)
	// TopUp returns the account's top-up (with its eSIM as it is now) or CodeNotFound.
	TopUp(ctx context.Context, accountID, topUpID string) (*TopUp, error)

	// ESIMBalances returns the account's balance (available and reserved) in every
	// currency it ever held, ordered by currency. The balances are the whole account's:
	// bookings reserve and pay from them too (ledger.go).
	ESIMBalances(ctx context.Context, accountID string) ([]Balance, error)
	// ListLedger returns a page of the account's ledger, newest first, and the total.
	ListLedger(ctx context.Context, accountID string, p Page) ([]*LedgerEntry, int, error)
	// CreditBalance adds e.Amount (positive) to the account's balance and appends e
	// (Kind credit or refund; ID and CreatedAt set by the caller) to the ledger in one
	// transaction, setting e.BalanceAfter. An unknown account is CodeNotFound.
	CreditBalance(ctx context.Context, e *LedgerEntry, audit *AuditEvent) error
}
