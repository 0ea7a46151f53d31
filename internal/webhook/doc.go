// Package webhook owns outgoing webhooks (CONTRACT §5): the subscription operations
// behind the HTTP handlers (Service), URL validation with its SSRF defence (Policy,
// NewClient), Standard Webhooks signing (Sign, SetHeaders), and the Dispatcher that
// sends the outbox's deliveries with retries and keeps the delivery log.
//
// # Delivery
//
// Events are written to the outbox by the store in the transaction of the change they
// describe, and in that same transaction the store creates a pending delivery for the
// account's subscription if it is active and its event_types filter accepts the
// event's type (skygate.WebhookStore). Nothing is kept in
// memory, so a crash or restart loses nothing: Dispatchers claim due deliveries with a
// lease (30 s), send them, and record each attempt and its outcome in one
// transaction. A dispatcher that dies mid-delivery leaves the delivery due again when
// the lease ends; another one (or the same one after restart) sends it again with the
// same webhook-id. Delivery is therefore at least once and receivers dedupe by
// webhook-id. On PostgreSQL several replicas claim concurrently with FOR UPDATE SKIP
// LOCKED; SQLite's single writer serialises claims.
//
// Each request is a POST of the event envelope {"id","type","api_version","created_at",
// "account_id","livemode","data"}, encoded once when the delivery was created so every
// attempt sends the same bytes, with the headers
//
//	webhook-id:        the event id (stable across retries)
//	webhook-timestamp: unix seconds of this attempt
//	webhook-signature: v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>
//	traceparent:       the attempt's span, when the dispatcher traces (trace.go); unsigned
//
// The HMAC key is the secret string's bytes as the partner gave it, unless the secret
// starts with "whsec_": then the key is the standard base64 decoding of the rest, as
// in the Standard Webhooks libraries (SigningKey). For the grace period after a
// rotation (SKYGATE_WEBHOOK_GRACE, default 24 h) the header carries two signatures,
// space-separated, the new secret's first.
//
// A 2xx answer is success. Anything else, including a redirect (never followed), a
// timeout (10 s) or a refused address, fails the attempt; the next one follows after
// about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±10 % jitter), or later when the
// receiver's Retry-After asks for more (capped at 24 h). After the eighth failed
// attempt the delivery is failed; a manual retry makes it pending again for one more
// attempt. 410 Gone fails the delivery and deactivates the subscription at once.
//
// # The active flag
//
// A subscription starts active. It turns inactive on a 410 answer, or when an attempt
// fails and its deliveries have been failing for 72 hours with no success in between.
// Rotating the secret, changing the URL or enabling it makes it active again. While
// inactive, new events produce no deliveries, the test operation, manual retries and
// recovery are refused (CodeConflict), and deliveries that were already pending are
// parked: they stay pending, are not sent, and are sent once the subscription is
// active again. Turning it inactive records when and why on the subscription and
// writes a webhook.subscription.disabled event, which the account reads in its event
// feed and which is never delivered.
//
// # Recovery
//
// Recover delivers again the events of the account since a time, at most the event
// retention window back, that the filter accepts: finished deliveries become pending,
// and events that had none (filtered out, or written while inactive) get one. The
// events keep their ids, so receivers that dedupe by webhook-id ignore repeats. One
// call handles the oldest MaxRecovered events in one transaction and says where the
// next continues (next_since); the HTTP layer limits the calls per subscription.
//
// # Addresses
//
// Policy.CheckURL refuses, at registration and on change-url, URLs whose host is or
// resolves to a loopback, private, link-local (cloud metadata), unspecified,
// multicast, shared, reserved or documentation address, IPv6 forms that embed one
// (IPv4-mapped, NAT64, 6to4), and hosts written as numbers in anything but canonical
// dotted decimal. NewClient applies the same address rule to the address it actually
// dials, so a name that resolves differently later (DNS rebinding) is refused at
// connect time. SKYGATE_WEBHOOK_ALLOW_PRIVATE turns the address rule off for
// development and tests.
package webhook
