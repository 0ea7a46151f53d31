-- An eSIM after its sale (skygate.ESIM, esimcare.go).
--
-- esims.profile_state is the profile's state as the SM-DP+ reports it; existing eSIMs
-- get the state their status implies. canceled_at is set when an unused eSIM is
-- canceled and refunded. refund_until is the end of the refund window the eSIM was
-- sold with (its order's time plus its package's refund_window_days then), NULL when it
-- was sold without one; existing eSIMs stay NULL: they were sold without a refund
-- promise, and a later change of a package's window never reaches an eSIM already
-- sold. expiry_warned is the last esim.expiring warning (days before expiry) sent in
-- the current validity period, 0 for none; the partial index esims_expiring holds
-- only the eSIMs that may still be due a warning (1 is the last one), for the worker
-- that looks for them.
--
-- esim_packages.apn is the package's access point as JSON (NULL: set by the network);
-- refund_window_days how long after its order an unused eSIM may be canceled.
--
-- esim_ledger.iccid names the eSIM of a refund line of a canceled eSIM, NULL on every
-- other line. esim_ledger_refunds serves the sum of the refund lines of a reference
-- that a cancel reads so that it never refunds more than was paid.
--
-- esim_history lists what happened to each eSIM, oldest first by seq: data is the JSON
-- of the entry's fields beside at and kind (skygate.ESIMHistoryEntry). Existing eSIMs
-- get their order and top-ups; their past status changes were not recorded.
--
-- esim_settings holds an account's usage thresholds (JSON array of percentages); an
-- account without a row has skygate.DefaultUsageThresholds.
--
-- The down migration is safe only before the first cancel: older code knows no
-- Canceled status, so the Canceled eSIMs (already refunded) would be rows it cannot
-- read or handle.

-- +goose Up
ALTER TABLE esims ADD COLUMN profile_state text NOT NULL DEFAULT 'Released';
ALTER TABLE esims ADD COLUMN canceled_at timestamptz;
ALTER TABLE esims ADD COLUMN expiry_warned integer NOT NULL DEFAULT 0;
UPDATE esims SET profile_state = 'Installed' WHERE status = 'Installed';
UPDATE esims SET profile_state = 'Enabled' WHERE status IN ('Active', 'Depleted', 'Expired');
ALTER TABLE esims ADD COLUMN refund_until timestamptz;
CREATE INDEX esims_expiring ON esims (expiry_warned, expires_at)
    WHERE status IN ('Active', 'Depleted') AND expiry_warned <> 1;

ALTER TABLE esim_packages ADD COLUMN apn text;
ALTER TABLE esim_packages ADD COLUMN refund_window_days bigint NOT NULL DEFAULT 30
    CHECK (refund_window_days BETWEEN 0 AND 365);

ALTER TABLE esim_ledger ADD COLUMN iccid text;
CREATE INDEX esim_ledger_refunds ON esim_ledger (account_id, reference, currency) WHERE kind = 'refund';

CREATE TABLE esim_history (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    iccid      text NOT NULL REFERENCES esims (iccid),
    at         timestamptz NOT NULL,
    kind       text NOT NULL,
    data       text NOT NULL
);
CREATE INDEX esim_history_iccid ON esim_history (account_id, iccid, seq);
INSERT INTO esim_history (account_id, iccid, at, kind, data)
SELECT e.account_id, e.iccid, o.created_at, 'ordered', json_build_object('order_id', o.id,
        'package_id', o.package_id, 'price', json_build_object('amount', o.unit_amount, 'currency', o.currency))::text
FROM esims e JOIN esim_orders o ON o.id = e.order_id
ORDER BY o.created_at, e.iccid;
INSERT INTO esim_history (account_id, iccid, at, kind, data)
SELECT t.account_id, t.iccid, t.created_at, 'topped_up', json_build_object('top_up_id', t.id,
        'package_id', t.package_id, 'price', json_build_object('amount', t.price_amount, 'currency', t.price_currency))::text
FROM esim_topups t
ORDER BY t.created_at, t.id;

CREATE TABLE esim_settings (
    account_id       text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    usage_thresholds text NOT NULL,
    updated_at       timestamptz NOT NULL
);

-- +goose Down
DROP TABLE esim_settings;
DROP TABLE esim_history;
DROP INDEX esim_ledger_refunds;
ALTER TABLE esim_ledger DROP COLUMN iccid;
ALTER TABLE esim_packages DROP COLUMN refund_window_days;
ALTER TABLE esim_packages DROP COLUMN apn;
DROP INDEX esims_expiring;
ALTER TABLE esims DROP COLUMN expiry_warned;
ALTER TABLE esims DROP COLUMN refund_until;
ALTER TABLE esims DROP COLUMN canceled_at;
ALTER TABLE esims DROP COLUMN profile_state;
