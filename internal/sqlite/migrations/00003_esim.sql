-- eSIMs: every account's packages and catalog version, its profile pool, orders, eSIMs,
-- top-ups, prepaid balances and their ledger. Times are INTEGER unix microseconds in
-- UTC; lists are JSON text; money is INTEGER minor units with a currency column.

-- +goose Up
CREATE TABLE esim_catalogs (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE esim_packages (
    id             TEXT PRIMARY KEY,
    -- seq keeps the order in which the admin listed the account's packages.
    seq            INTEGER NOT NULL,
    account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    countries      TEXT NOT NULL DEFAULT '[]',
    data_mb        INTEGER,
    validity_days  INTEGER NOT NULL,
    price_amount   INTEGER NOT NULL CHECK (price_amount >= 0),
    price_currency TEXT NOT NULL,
    top_up         INTEGER NOT NULL DEFAULT 0,
    active         INTEGER NOT NULL DEFAULT 1,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    -- The target of the composite foreign keys that keep orders and eSIMs on their
    -- own account's packages.
    UNIQUE (account_id, id)
) STRICT;

CREATE INDEX esim_packages_account ON esim_packages (account_id, seq, id);

-- A profile is in at most one pool of all accounts: the ICCID is the primary key.
CREATE TABLE esim_pool_profiles (
    iccid           TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    smdp_address    TEXT NOT NULL,
    matching_id_enc BLOB NOT NULL,
    status          TEXT NOT NULL,
    order_id        TEXT,
    imported_at     INTEGER NOT NULL
) STRICT;

-- Allocation takes the oldest Available profiles of one account.
CREATE INDEX esim_pool_available ON esim_pool_profiles (account_id, status, imported_at, iccid);

CREATE TABLE esim_orders (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id         TEXT NOT NULL DEFAULT '',
    package_id        TEXT NOT NULL,
    quantity          INTEGER NOT NULL,
    partner_reference TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL,
    unit_amount       INTEGER NOT NULL,
    total_amount      INTEGER NOT NULL,
    currency          TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    FOREIGN KEY (account_id, package_id) REFERENCES esim_packages (account_id, id)
) STRICT;

CREATE INDEX esim_orders_account ON esim_orders (account_id, created_at, id);

-- An eSIM is a pool profile given to an order; the primary key on the ICCID makes it
-- impossible to give one profile to two orders.
CREATE TABLE esims (
    iccid               TEXT PRIMARY KEY REFERENCES esim_pool_profiles (iccid),
    account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    order_id            TEXT NOT NULL REFERENCES esim_orders (id),
    package_id          TEXT NOT NULL,
    status              TEXT NOT NULL,
    total_mb            INTEGER,
    used_mb             INTEGER NOT NULL DEFAULT 0,
    validity_days       INTEGER NOT NULL,
    notified_thresholds TEXT NOT NULL DEFAULT '[]',
    installed_at        INTEGER,
    activated_at        INTEGER,
    expires_at          INTEGER,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    FOREIGN KEY (account_id, package_id) REFERENCES esim_packages (account_id, id)
) STRICT;

CREATE INDEX esims_account ON esims (account_id, created_at, order_id, iccid);
CREATE INDEX esims_order ON esims (order_id, iccid);
-- The expiry worker: Active and Depleted eSIMs by end of validity.
CREATE INDEX esims_expiry ON esims (status, expires_at);

CREATE TABLE esim_topups (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id      TEXT NOT NULL DEFAULT '',
    iccid          TEXT NOT NULL REFERENCES esims (iccid),
    package_id     TEXT NOT NULL,
    data_mb        INTEGER,
    validity_days  INTEGER NOT NULL,
    price_amount   INTEGER NOT NULL,
    price_currency TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    FOREIGN KEY (account_id, package_id) REFERENCES esim_packages (account_id, id)
) STRICT;

CREATE INDEX esim_topups_iccid ON esim_topups (iccid, created_at);

-- The CHECK is the last line of defence; debits are conditional updates that never
-- take a balance below zero.
CREATE TABLE esim_balances (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    currency   TEXT NOT NULL,
    amount     INTEGER NOT NULL CHECK (amount >= 0),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, currency)
) STRICT;

-- seq orders the ledger; amounts are signed (charges negative).
CREATE TABLE esim_ledger (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    amount        INTEGER NOT NULL,
    currency      TEXT NOT NULL,
    balance_after INTEGER NOT NULL,
    reference     TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX esim_ledger_account ON esim_ledger (account_id, seq);

-- +goose Down
DROP TABLE esim_ledger;
DROP TABLE esim_balances;
DROP TABLE esim_topups;
DROP TABLE esims;
DROP TABLE esim_orders;
DROP TABLE esim_pool_profiles;
DROP TABLE esim_packages;
DROP TABLE esim_catalogs;
