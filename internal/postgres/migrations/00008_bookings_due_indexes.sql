-- The worker reads Pending bookings by age and Issued bookings by confirmation
-- deadline, and nothing else reads bookings by status across accounts. Partial indexes
-- hold only the rows those claims can return: a new booking enters one index instead
-- of two, issuing it moves it from one to the other, and a booking past Issued is in
-- neither (the full (status, …) indexes rewrote two entries on every transition).
-- The claim queries name the status as a literal so that the planner can use them.

-- +goose Up
CREATE INDEX bookings_pending_created ON bookings (created_at, id) WHERE status = 'Pending';
CREATE INDEX bookings_issued_confirm_before ON bookings (confirm_before, id) WHERE status = 'Issued';
DROP INDEX bookings_status_created;
DROP INDEX bookings_status_confirm_before;

-- +goose Down
CREATE INDEX bookings_status_created ON bookings (status, created_at, id);
CREATE INDEX bookings_status_confirm_before ON bookings (status, confirm_before, id);
DROP INDEX bookings_pending_created;
DROP INDEX bookings_issued_confirm_before;
