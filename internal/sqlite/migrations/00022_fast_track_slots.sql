-- fast_track_slot_usage counts the places bookings hold in each one-hour capacity
-- slot of a fast-track (skygate.BookingSlot), starting at slot_start (unix
-- microseconds, UTC). Capacity is the airport's, so the table is global: every
-- account's bookings count against one row. A booking takes its places with one
-- conditional upsert that never lets used exceed the capacity, and gives them back
-- when it expires or is canceled before it is used.

-- +goose Up
CREATE TABLE fast_track_slot_usage (
    fast_track_id TEXT NOT NULL,
    slot_start INTEGER NOT NULL,
    used INTEGER NOT NULL CHECK (used >= 0),
    PRIMARY KEY (fast_track_id, slot_start)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE fast_track_slot_usage;
