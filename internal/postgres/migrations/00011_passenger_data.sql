-- Passengers' personal data rests sealed (AES-GCM, internal/sqlstore/sealed.go), and
-- so do the fingerprint and body of idempotency records (the stored answer of
-- create-booking repeats the passengers).
--
-- bookings.passenger_data holds the passengers whole, sealed and bound to the booking;
-- passengers then holds their names only. It is NULL once the personal data was
-- removed after the retention (personal_data_removed_at set), and on rows written
-- before this migration (or by an older release), whose passengers column still holds
-- everything in clear until the booking worker seals it (SealLegacyData): the partial
-- index bookings_passengers_unsealed lists exactly those. idempotency_records.sealed
-- says the record's fingerprint and body are sealed; old rows are sealed the same way.
--
-- Events and webhook deliveries never hold personal data now: the booking of
-- booking.status.changed carries the passengers' names only. The UPDATEs below take
-- the personal fields out of the ones stored before, in place and byte for byte
-- otherwise (receivers dedupe by webhook-id, which does not change). Inside a JSON
-- string every quote is escaped, so ,"email":" can only be a member's start.

-- +goose Up
ALTER TABLE bookings ADD COLUMN passenger_data bytea, ADD COLUMN personal_data_removed_at timestamptz;
-- The worker's removal: bookings still holding personal data, by service date.
CREATE INDEX bookings_passenger_data_due ON bookings (service_date, id) WHERE passenger_data IS NOT NULL;
CREATE INDEX bookings_passengers_unsealed ON bookings (id)
    WHERE passenger_data IS NULL AND personal_data_removed_at IS NULL;

ALTER TABLE idempotency_records ADD COLUMN sealed boolean NOT NULL DEFAULT false;
CREATE INDEX idempotency_records_unsealed ON idempotency_records (account_id, operation, idem_key) WHERE NOT sealed;

UPDATE events
    SET data = regexp_replace(data, ',"(date_of_birth|passport_number|nationality|email|phone)":"([^"\\]|\\.)*"', '', 'g')
    WHERE type = 'booking.status.changed' AND data ~ ',"(date_of_birth|passport_number|nationality|email|phone)":"';
UPDATE webhook_deliveries
    SET body = regexp_replace(body, ',"(date_of_birth|passport_number|nationality|email|phone)":"([^"\\]|\\.)*"', '', 'g')
    WHERE event_type = 'booking.status.changed' AND body ~ ',"(date_of_birth|passport_number|nationality|email|phone)":"';

-- +goose Down
-- A release without this migration reads passengers as they are: the names only, once
-- sealed; the sealed personal data is dropped.
DROP INDEX idempotency_records_unsealed;
ALTER TABLE idempotency_records DROP COLUMN sealed;
DROP INDEX bookings_passengers_unsealed;
DROP INDEX bookings_passenger_data_due;
ALTER TABLE bookings DROP COLUMN personal_data_removed_at, DROP COLUMN passenger_data;
