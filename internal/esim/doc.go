// Package esim owns the eSIM logic beyond storage (CONTRACT §6): the per-account package
// catalog in the partner's language, orders and top-ups with Idempotency-Key, the
// activation codes and their QR codes, billing, the admin operations (packages, pool
// upload, credits), the sandbox that drives status and usage, the expiry worker, and the
// demo data of the development account.
//
// Matching IDs are secrets at rest: the service seals each with a Sealer (a *seal.Box
// made from seal.PurposeESIMMatchingID) before the store sees it, binding the sealed
// value to its ICCID, and opens it only to answer the owning account. Events carry ICCIDs
// but never activation codes, because webhooks leave the service.
//
// The owner's reads carry install links beside the code (install.go): Apple's install
// link, the LPA: string and the hosted install page, whose token is a stateless bearer
// capability (an HMAC-SHA256 over the account and the ICCID under a key derived with
// seal.PurposeESIMInstallLink). A page reads its eSIM with the account-scoped store call
// and shows the code only while the eSIM can still be installed.
//
// Orders and top-ups take typed commands and follow create-booking's Idempotency-Key
// rules (internal/idempotency): the fingerprint covers the typed request's canonical
// JSON, a known key with the same request answers the stored result (replayed) and with
// another request CodeIdempotencyConflict, and only accepted requests are remembered. A
// replay answers with the order or top-up as it is now, read by the id the record
// names; the record's stored answer holds no activation codes.
//
// The service is safe for concurrent use; every guarantee that concurrent requests need
// (no profile sold twice, no negative balance, one order per key) comes from the store's
// transactions, not from locks here.
package esim
