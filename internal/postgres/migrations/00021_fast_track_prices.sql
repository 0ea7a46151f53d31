-- Every account's price list of fast-tracks (skygate.PriceStore).
--
-- fast_track_price_lists holds one row per account that ever had a list: its version,
-- raised by every replacement (a removal too), so that responses showing prices can
-- tell when they changed, and the time of that change. It is written first when a
-- list is replaced, so its row lock serialises replacements of one account's list.
-- fast_track_prices holds the list's prices in integer minor units of currency; the
-- service defaults child and infant to adult before they get here.

-- +goose Up
CREATE TABLE fast_track_price_lists (
    account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    version    bigint NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE TABLE fast_track_prices (
    account_id    text NOT NULL REFERENCES fast_track_price_lists (account_id) ON DELETE CASCADE,
    fast_track_id text NOT NULL,
    currency      text NOT NULL,
    adult         bigint NOT NULL CHECK (adult > 0),
    child         bigint NOT NULL CHECK (child >= 0),
    infant        bigint NOT NULL CHECK (infant >= 0),
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (account_id, fast_track_id)
);

-- +goose Down
DROP TABLE fast_track_prices;
DROP TABLE fast_track_price_lists;
