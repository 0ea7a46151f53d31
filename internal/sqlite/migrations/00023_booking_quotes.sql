-- Quotes of fast-track bookings (skygate.Quote): a price and cancellation terms given
-- to an account for one fast-track, flight time and set of passenger types, which one
-- booking may lock until expires_at. fingerprint is skygate.QuoteFingerprint of those
-- facts; a booking uses the quote only when its own facts have it. used_by is the
-- booking that locked the quote (NULL while unused); a booking locks one quote at
-- most. Times are INTEGER unix microseconds in UTC; lists are JSON text.

-- +goose Up
CREATE TABLE booking_quotes (
    id                  TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id           TEXT NOT NULL,
    fast_track_id       TEXT NOT NULL,
    fingerprint         BLOB NOT NULL,
    price_amount        INTEGER NOT NULL CHECK (price_amount >= 0),
    price_currency      TEXT NOT NULL,
    cancellation_policy TEXT NOT NULL DEFAULT '[]',
    scheduled_at        TEXT NOT NULL,
    passenger_types     TEXT NOT NULL,
    created_at          INTEGER NOT NULL,
    expires_at          INTEGER NOT NULL,
    used_by             TEXT UNIQUE,
    used_at             INTEGER
) STRICT;

-- +goose Down
DROP TABLE booking_quotes;
