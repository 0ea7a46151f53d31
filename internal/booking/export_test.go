package booking

// EarliestOpen exposes earliestOpen to the table tests of package booking_test.
var EarliestOpen = earliestOpen

// ScheduledInstant exposes scheduledInstant to the tests.
var ScheduledInstant = scheduledInstant
