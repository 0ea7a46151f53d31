package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Secret limits (CONTRACT §5).
const (
	MinSecretLength = 24
	MaxSecretLength = 256
)

// SecretPrefix marks a Standard Webhooks secret: the HMAC key is the standard base64
// decoding of what follows it.
const SecretPrefix = "whsec_"

// Standard Webhooks headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// CheckSecret validates a signing secret: 24–256 printable ASCII characters (space to
// tilde); one that starts with SecretPrefix must be followed by non-empty standard
// base64. Refusals are CodeValidation errors on the field "secret".
func CheckSecret(secret string) error {
	if msg := checkSecret(secret); msg != "" {
		return invalid("secret", msg)
	}
	return nil
}

func checkSecret(secret string) string {
	switch {
	case secret == "":
		return "secret is required"
	case len(secret) < MinSecretLength || len(secret) > MaxSecretLength:
		return "secret must be 24 to 256 characters"
	case strings.ContainsFunc(secret, func(r rune) bool { return r < 0x20 || r > 0x7e }):
		return "secret must be printable ASCII"
	}
	if _, err := SigningKey(secret); err != nil {
		return "secret starts with whsec_ but what follows is not base64"
	}
	return ""
}

// SigningKey returns the HMAC key of a secret (CONTRACT §5): the secret's bytes as
// given, except that a secret starting with SecretPrefix stands for the base64 payload
// after it, as in the Standard Webhooks libraries. So "whsec_" plus base64 of 32
// random bytes and those 32 bytes given as is produce the same signatures, while any
// other string is used verbatim.
func SigningKey(secret string) ([]byte, error) {
	payload, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, err
	}
	if len(key) == 0 {
		return nil, base64.CorruptInputError(0)
	}
	return key, nil
}

// Sign returns one Standard Webhooks signature, "v1," and the base64 of
// HMAC-SHA256(key, msgID + "." + unix seconds + "." + body).
func Sign(key []byte, msgID string, timestamp time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, timestamp.Unix(), 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// SetHeaders sets the Standard Webhooks headers of one attempt on h: the message id,
// the timestamp in unix seconds, and the signatures by each key, space-separated in
// the order given (the current key first, then the previous one during the grace
// period after a rotation). Receivers accept the request when any signature verifies.
func SetHeaders(h http.Header, keys [][]byte, msgID string, timestamp time.Time, body []byte) {
	sigs := make([]string, len(keys))
	for i, k := range keys {
		sigs[i] = Sign(k, msgID, timestamp, body)
	}
	h.Set(HeaderID, msgID)
	h.Set(HeaderTimestamp, strconv.FormatInt(timestamp.Unix(), 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
}
