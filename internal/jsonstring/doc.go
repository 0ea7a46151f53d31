// Package jsonstring writes JSON strings without encoding/json's reflection, for the
// hand-written encoders on hot paths (the access log, the idempotency fingerprint). It
// owns one rule: a string comes out byte for byte as encoding/json writes it.
package jsonstring
