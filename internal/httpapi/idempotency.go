package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
)

// headerIdempotencyKey names the key of an idempotent request (create-booking, eSIM
// orders and top-ups).
const headerIdempotencyKey = "Idempotency-Key"

// idempotencyKey returns the request's Idempotency-Key, "" when there is none (the
// service then refuses the request). The header carries one key: sent twice, it is a
// 400 rather than a guess, since which copy counts would depend on the proxies on the
// way. The key's form is the service's to check (booking.ValidateKey).
func idempotencyKey(r *http.Request) (string, error) {
	v := r.Header.Values(headerIdempotencyKey)
	if len(v) > 1 {
		const msg = "the Idempotency-Key header must be sent once"
		return "", &skygate.Error{Code: skygate.CodeBadRequest, Message: msg,
			Fields: []skygate.FieldError{{Field: headerIdempotencyKey, Message: msg}}}
	}
	if len(v) == 0 {
		return "", nil
	}
	return v[0], nil
}

// idempotencyStatus sets Idempotency-Status: reused for the stored answer to an earlier
// request with the same key, created for a new one.
func idempotencyStatus(w http.ResponseWriter, reused bool) {
	if reused {
		w.Header().Set("Idempotency-Status", "reused")
		return
	}
	w.Header().Set("Idempotency-Status", "created")
}
