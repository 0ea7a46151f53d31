-- eSIMs: every account's packages and catalog version, its profile pool, orders, eSIMs,
-- top-ups, prepaid balances and their ledger. Lists are JSON text, the same as on
-- SQLite; money is bigint minor units with a currency column.

-- +goose Up
CREATE TABLE esim_catalogs (
    account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    version    bigint NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE esim_packages (
    id             text PRIMARY KEY,
    -- seq keeps the order in which the admin listed the account's packages.
    seq            bigint NOT NULL,
    account_id     text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name           text NOT NULL,
    countries      text NOT NULL DEFAULT '[]',
    data_mb        bigint,
    validity_days  bigint NOT NULL,
    price_amount   bigint NOT NULL CHECK (price_amount >= 0),
    price_currency text NOT NULL,
    top_up         boolean NOT NULL DEFAULT false,
    active         boolean NOT NULL DEFAULT true,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    -- The target of the composite foreign keys that keep orders and eSIMs on their
    -- own account's packages.
    UNIQUE (account_id, id)
);

CREATE INDEX esim_packages_account ON esim_packages (account_id, seq, id);

-- A profile is in at most one pool of all accounts: the ICCID is the primary key.
CREATE TABLE esim_pool_profiles (
    iccid           text PRIMARY KEY,
    account_id      text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    smdp_address    text NOT NULL,
    matching_id_enc bytea NOT NULL,
    status          text NOT NULL,
    order_id        text,
    imported_at     timestamptz NOT NULL
);

-- Allocation takes the oldest Available profiles of one account.
CREATE INDEX esim_pool_available ON esim_pool_profiles (account_id, status, imported_at, iccid);

CREATE TABLE esim_orders (
    id                text PRIMARY KEY,
    account_id        text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id         text NOT NULL DEFAULT '',
    package_id        text NOT NULL,
    quantity          bigint NOT NULL,
    partner_reference text NOT NULL DEFAULT '',
    status            text NOT NULL,
    unit_amount       bigint NOT NULL,
    total_amount      bigint NOT NULL,
    currency          text NOT NULL,
    created_at        timestamptz NOT NULL,
    FOREIGN KEY (account_id, package_id) REFERENCES esim_packages (account_id, id)
);

CREATE INDEX esim_orders_account ON esim_orders (account_id, created_at, id);

-- An eSIM is a pool profile given to an order; the primary key on the ICCID makes it
-- impossible to give one profile to two orders.
CREATE TABLE esims (
    iccid               text PRIMARY KEY REFERENCES esim_pool_profiles (iccid),
    account_id          text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    order_id            text NOT NULL REFERENCES esim_orders (id),
    package_id          text NOT NULL,
    status              text NOT NULL,
    total_mb            bigint,
    used_mb             bigint NOT NULL DEFAULT 0,
    validity_days       bigint NOT NULL,
    notified_thresholds text NOT NULL DEFAULT '[]',
    installed_at        timestamptz,
    activated_at        timestamptz,
    expires_at          timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    FOREIGN KEY (account_id, package_id) REFERENCES esim_packages (account_id, id)
);

CREATE INDEX esims_account ON esims (account_id, created_at, order_id, iccid);
CREATE INDEX esims_order ON esims (order_id, iccid);
-- The expiry worker: Active and Depleted eSIMs by end of validity.
CREATE INDEX esims_expiry ON esims (status, expires_at);

CREATE TABLE esim_topups (
    id             text PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    client_id      text NOT NULL DEFAULT '',
    iccid          text NOT NULL REFERENCES esims (iccid),
    package_id     text NOT NULL,
    data_mb        bigint,
    validity_days  bigint NOT NULL,
    price_amount   bigint NOT NULL,
    price_currency text NOT NULL,
    created_at     timestamptz NOT NULL,
    FOREIGN KEY (account_id, package_id) REFERENCES esim_packages (account_id, id)
);

CREATE INDEX esim_topups_iccid ON esim_topups (iccid, created_at);

-- The CHECK is the last line of defence; debits are conditional updates that never
-- take a balance below zero.
CREATE TABLE esim_balances (
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    currency   text NOT NULL,
    amount     bigint NOT NULL CHECK (amount >= 0),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, currency)
);

-- seq orders the ledger; amounts are signed (charges negative). Unlike the events
-- table, nobody reads the ledger by cursor, so gaps and commit order do not matter.
CREATE TABLE esim_ledger (
    seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            text NOT NULL UNIQUE,
    account_id    text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind          text NOT NULL,
    amount        bigint NOT NULL,
    currency      text NOT NULL,
    balance_after bigint NOT NULL,
    reference     text NOT NULL DEFAULT '',
    description   text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL
);

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
