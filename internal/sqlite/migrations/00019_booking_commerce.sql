-- The commercial side of a booking (skygate.Booking's Price, CancellationPolicy,
-- Refund, QuoteID and Slot), as one JSON text column: NULL for a booking without any,
-- which every booking stored before this migration is. The transition that cancels a
-- priced booking rewrites it with the refund.
--
-- fast_track_capacities holds the admins' capacity per one-hour slot of a fast-track;
-- a fast-track without a row has the capacity its catalog record gives. Capacity is
-- the airport's, shared by every account.

-- +goose Up
ALTER TABLE bookings ADD COLUMN commerce TEXT;
CREATE TABLE fast_track_capacities (
    fast_track_id TEXT PRIMARY KEY,
    capacity INTEGER NOT NULL CHECK (capacity >= 0),
    updated_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE fast_track_capacities;
ALTER TABLE bookings DROP COLUMN commerce;
