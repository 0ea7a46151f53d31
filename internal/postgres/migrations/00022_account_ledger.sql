-- The eSIM balances and ledger become the account's one prepaid ledger, which
-- fast-track bookings share (skygate.Balance, skygate.BookingLedgerMoves).
--
-- esim_balances.amount stays what is available to spend; reserved is the sum of the
-- prices of the account's live priced bookings (Pending or Issued), which left amount
-- when they were created. esim_ledger.booking_id names the booking of a booking line
-- (reservation, release, charge, refund), NULL for every other line; reference holds
-- the booking id too, as it holds an order's id. The created_at index serves the
-- monthly statement.
--
-- billing_thresholds holds each account's low-balance threshold per currency: a debit
-- of the available amount across it writes billing.balance.low.

-- +goose Up
ALTER TABLE esim_balances ADD COLUMN reserved bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0);
ALTER TABLE esim_ledger ADD COLUMN booking_id text;
CREATE INDEX esim_ledger_account_created ON esim_ledger (account_id, created_at);
CREATE TABLE billing_thresholds (
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    currency   text NOT NULL,
    amount     bigint NOT NULL CHECK (amount >= 0),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, currency)
);

-- +goose Down
DROP TABLE billing_thresholds;
DROP INDEX esim_ledger_account_created;
ALTER TABLE esim_ledger DROP COLUMN booking_id;
ALTER TABLE esim_balances DROP COLUMN reserved;
