-- Every account's price list of fast-tracks (skygate.PriceStore).
--
-- fast_track_price_lists holds one row per account that ever had a list: its version,
-- raised by every replacement (a removal too), so that responses showing prices can
-- tell when they changed, and the time of that change. It is written first when a
-- list is replaced, so that (with the single writer) replacements of one account's list run one at a time.
-- fast_track_prices holds the list's prices in integer minor units of currency; the
-- service defaults child and infant to adult before they get here.

-- +goose Up
CREATE TABLE fast_track_price_lists (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE fast_track_prices (
    account_id    TEXT NOT NULL REFERENCES fast_track_price_lists (account_id) ON DELETE CASCADE,
    fast_track_id TEXT NOT NULL,
    currency      TEXT NOT NULL,
    adult         INTEGER NOT NULL CHECK (adult > 0),
    child         INTEGER NOT NULL CHECK (child >= 0),
    infant        INTEGER NOT NULL CHECK (infant >= 0),
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (account_id, fast_track_id)
) STRICT;

-- +goose Down
DROP TABLE fast_track_prices;
DROP TABLE fast_track_price_lists;
