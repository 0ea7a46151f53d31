-- The booking worker purges quotes a day after they expired (QuoteStore.PurgeQuotes),
-- oldest first and a batch at a time: the index finds them without a scan.

-- +goose Up
CREATE INDEX booking_quotes_expires_at ON booking_quotes (expires_at);

-- +goose Down
DROP INDEX booking_quotes_expires_at;
