package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a delivery's webhook-timestamp may be from the
// receiver's clock: an older delivery may be a replay of a captured one.
const WebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook, to tell with errors.Is.
var (
	// ErrWebhookSignature: a header is missing or no signature is the secret's.
	ErrWebhookSignature = errors.New("skygate webhook: invalid signature")
	// ErrWebhookTimestamp: the signature may be right, but webhook-timestamp is more
	// than WebhookTolerance from now.
	ErrWebhookTimestamp = errors.New("skygate webhook: timestamp out of tolerance")
)

// VerifyWebhook checks a delivery as Standard Webhooks defines it, with the header and
// the raw body of the request: one of the space-separated signatures of the
// webhook-signature header is "v1," and the base64 of HMAC-SHA256 of webhook-id, ".",
// webhook-timestamp, "." and the body, and the timestamp is within WebhookTolerance of
// now. The key is secret as given, except that a secret starting with "whsec_" stands
// for the base64 payload after it. After a rotation Skygate signs with the new and the
// previous secret for a grace period, so either verifies. Deliveries are at least once:
// deduplicate by webhook-id.
func VerifyWebhook(secret string, header http.Header, body []byte) error {
	return verifyWebhook(secret, header, body, time.Now())
}

func verifyWebhook(secret string, header http.Header, body []byte, now time.Time) error {
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return fmt.Errorf("%w: webhook-id, webhook-timestamp and webhook-signature are required", ErrWebhookSignature)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: webhook-timestamp %q is not unix seconds", ErrWebhookSignature, ts)
	}
	key, err := webhookKey(secret)
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, sig, _ := strings.Cut(s, ",")
		got, err := base64.StdEncoding.DecodeString(sig)
		if version != "v1" || err != nil || !hmac.Equal(got, want) {
			continue
		}
		// The timestamp is signed: check it once it is known to be Skygate's.
		if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
			return fmt.Errorf("%w: webhook-timestamp %s is %s off the receiver's clock", ErrWebhookTimestamp, ts, d.Abs().Round(time.Second))
		}
		return nil
	}
	return ErrWebhookSignature
}

// webhookKey returns the HMAC key of a webhook secret.
func webhookKey(secret string) ([]byte, error) {
	if secret == "" {
		return nil, errors.New("skygate webhook: empty secret")
	}
	payload, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(payload)
	if err != nil || len(key) == 0 {
		return nil, errors.New("skygate webhook: a whsec_ secret must be followed by base64")
	}
	return key, nil
}
