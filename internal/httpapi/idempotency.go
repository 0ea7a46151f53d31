package httpapi

import (
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/idempotency"
)

// headerIdempotencyKey names the key of an idempotent request (create-booking, eSIM
// orders and top-ups).
const headerIdempotencyKey = "Idempotency-Key"

// idempotencyKey returns the request's Idempotency-Key, checked first of all (400 when
// missing or malformed, idempotency.ValidateKey). The header carries one key: sent
// twice, it is a 400 rather than a guess, since which copy counts would depend on the
// proxies on the way.
func idempotencyKey(r *http.Request) (string, error) {
	v := r.Header.Values(headerIdempotencyKey)
	if len(v) > 1 {
		const msg = "the Idempotency-Key header must be sent once"
		return "", &skygate.Error{Code: skygate.CodeBadRequest, Message: msg,
			Fields: []skygate.FieldError{{Field: headerIdempotencyKey, Message: msg}}}
	}
	var key string
	if len(v) == 1 {
		key = v[0]
	}
	return key, idempotency.ValidateKey(key)
}

// writeIdempotent answers an idempotent request with code and v, the resource it
// created, saying whether this is the stored answer to an earlier request with the
// same key (Idempotency-Status: reused) or a new one (created). A replay is rendered
// as the first answer was.
func writeIdempotent(w http.ResponseWriter, code int, replayed bool, v any) error {
	status := "created"
	if replayed {
		status = "reused"
	}
	w.Header().Set("Idempotency-Status", status)
	return writeJSON(w, code, v)
}
