-- Quotes of fast-track bookings (skygate.Quote): a price and cancellation terms given
-- to an account for one fast-track, flight time and set of passenger types, which one
-- booking may lock until expires_at. fingerprint is skygate.QuoteFingerprint of those
-- facts; a booking uses the quote only when its own facts have it. used_by is the
-- booking that locked the quote (NULL while unused); a booking locks one quote at
-- most. Lists are JSON text.

-- +goose Up
CREATE TABLE booking_quotes (
    id                  text PRIMARY KEY,
    account_id          text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id           text NOT NULL,
    fast_track_id       text NOT NULL,
    fingerprint         bytea NOT NULL,
    price_amount        bigint NOT NULL CHECK (price_amount >= 0),
    price_currency      text NOT NULL,
    cancellation_policy text NOT NULL DEFAULT '[]',
    scheduled_at        text NOT NULL,
    passenger_types     text NOT NULL,
    created_at          timestamptz NOT NULL,
    expires_at          timestamptz NOT NULL,
    used_by             text UNIQUE,
    used_at             timestamptz
);

-- +goose Down
DROP TABLE booking_quotes;
