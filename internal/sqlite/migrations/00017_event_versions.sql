-- Versioned envelopes: every event records the api_version its data was written in and
-- its livemode, so that the events API re-encodes a stored event to the bytes its
-- webhook delivery sent. Bookings, eSIM orders and eSIMs record livemode when they are
-- created, from the creating request, because events about them are also written later
-- by background work (expiry, usage) that has no request to ask.
--
-- Existing rows: events take the first version, 2026-12-01, whose envelope and data are
-- what those events already held (the version only adds the two envelope fields).
-- livemode defaults to true (1), the mode of a production deployment, except where the
-- database knows better: objects created by an application that is a sandbox
-- application (still existing) are false, and so are their events, found by the
-- booking_id or order_id of their data. A sandbox deployment (SKYGATE_ENV=sandbox) is
-- not recorded in the database, so its earlier rows of live applications stay true;
-- events written from now on say false there.

-- +goose Up
ALTER TABLE events ADD COLUMN api_version TEXT NOT NULL DEFAULT '2026-12-01';
ALTER TABLE events ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));
ALTER TABLE bookings ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));
ALTER TABLE esim_orders ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));
ALTER TABLE esims ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));

UPDATE bookings SET livemode = 0
WHERE client_id IN (SELECT client_id FROM applications WHERE sandbox);
UPDATE esim_orders SET livemode = 0
WHERE client_id IN (SELECT client_id FROM applications WHERE sandbox);
UPDATE esims SET livemode = 0
WHERE order_id IN (SELECT id FROM esim_orders WHERE NOT livemode);
UPDATE events SET livemode = 0
WHERE account_id IN (SELECT account_id FROM applications WHERE sandbox)
  AND (json_extract(data, '$.booking_id') IN (SELECT id FROM bookings WHERE NOT livemode)
    OR json_extract(data, '$.order_id') IN (SELECT id FROM esim_orders WHERE NOT livemode));

-- +goose Down
ALTER TABLE esims DROP COLUMN livemode;
ALTER TABLE esim_orders DROP COLUMN livemode;
ALTER TABLE bookings DROP COLUMN livemode;
ALTER TABLE events DROP COLUMN livemode;
ALTER TABLE events DROP COLUMN api_version;
