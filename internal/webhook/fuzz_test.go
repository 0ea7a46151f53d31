package webhook_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

// FuzzSign checks webhook signing against the Standard Webhooks reference library for
// arbitrary secrets, message ids, timestamps and bodies: a secret is either refused by
// CheckSecret with a validation error on "secret", or its key signs requests that the
// library verifies (alone and next to a second signature, in either order), while a
// changed body, id or timestamp never verifies. Sign never panics, whatever the key.
func FuzzSign(f *testing.F) {
	for _, s := range []struct {
		secret, id string
		ts         int64
		body       string
	}{
		{secret1, "msg_1", 1_700_000_000, `{"type":"booking.status.changed"}`},
		{secret2, "0190c5a8-9d1b-7c4e-8f00-000000000001", 1_700_000_000, `{}`},
		{"whsec_" + strings.Repeat("A", 43) + "=", "id", 0, ""},
		{"whsec_not base64 at all!!!!", "id", -1, "x"},
		{"whsec_", "id", 1, "x"},
		{strings.Repeat("s", 23), "id", 1, "x"},
		{strings.Repeat("s", 257), "id", 1, "x"},
		{strings.Repeat("é", 24), "id", 1, "x"},
		{"a secret with spaces and ~!@#$%^&*()", "id with spaces", 1 << 40, "\x00\xff"},
		{"secret-with-a-newline-\n-inside-it", "id", 1, "x"},
	} {
		f.Add(s.secret, s.id, s.ts, []byte(s.body))
	}
	other := []byte("another-key-for-the-grace-period")
	f.Fuzz(func(t *testing.T, secret, msgID string, unix int64, body []byte) {
		ts := time.Unix(unix, 0)
		key, keyErr := webhook.SigningKey(secret)
		// Sign accepts any key, even one CheckSecret would refuse.
		sig := webhook.Sign([]byte(secret), msgID, ts, body)
		if !strings.HasPrefix(sig, "v1,") || len(sig) != len("v1,")+44 {
			t.Fatalf("signature %q is not v1 and base64 of 32 bytes", sig)
		}
		if err := webhook.CheckSecret(secret); err != nil {
			if !skygate.IsCode(err, skygate.CodeValidation) || !strings.Contains(skygate.ErrorMessage(err)+fieldsOf(err), "secret") {
				t.Fatalf("CheckSecret(%q) = %v, not a validation error on secret", secret, err)
			}
			return
		}
		if keyErr != nil {
			t.Fatalf("CheckSecret accepts %q but SigningKey fails: %v", secret, keyErr)
		}
		if msgID == "" || strings.ContainsAny(msgID, "\r\n") {
			return // not a header value a receiver could read
		}
		if payload, ok := strings.CutPrefix(secret, webhook.SecretPrefix); ok {
			want, err := base64.StdEncoding.DecodeString(payload)
			if err != nil || !bytes.Equal(key, want) {
				t.Fatalf("whsec key of %q is %x, want %x (%v)", secret, key, want, err)
			}
		} else if string(key) != secret {
			t.Fatalf("plain secret %q is not used verbatim", secret)
		}
		lib, err := standardwebhooks.NewWebhookRaw(key)
		if err != nil {
			t.Fatal(err)
		}
		for _, keys := range [][][]byte{{key}, {key, other}, {other, key}} {
			h := http.Header{}
			webhook.SetHeaders(h, keys, msgID, ts, body)
			if err := lib.VerifyIgnoringTimestamp(body, h); err != nil {
				t.Fatalf("library refuses secret %q id %q ts %d with %d keys: %v", secret, msgID, unix, len(keys), err)
			}
			if got := strings.Fields(h.Get(webhook.HeaderSignature)); len(got) != len(keys) {
				t.Fatalf("%d signatures for %d keys: %q", len(got), len(keys), h.Get(webhook.HeaderSignature))
			}
		}
		// Anything changed in what is signed breaks the signature.
		for name, change := range map[string]func(h http.Header) []byte{
			"body": func(http.Header) []byte { return append(bytes.Clone(body), '!') },
			"id": func(h http.Header) []byte {
				h.Set(webhook.HeaderID, msgID+"x")
				return body
			},
			"timestamp": func(h http.Header) []byte {
				h.Set(webhook.HeaderTimestamp, strconv.FormatInt(unix+1, 10))
				return body
			},
		} {
			h := http.Header{}
			webhook.SetHeaders(h, [][]byte{key}, msgID, ts, body)
			if lib.VerifyIgnoringTimestamp(change(h), h) == nil {
				t.Fatalf("a changed %s still verifies (secret %q id %q)", name, secret, msgID)
			}
		}
	})
}

// fieldsOf joins the field names of a validation error.
func fieldsOf(err error) string {
	var names []string
	var e *skygate.Error
	if errors.As(err, &e) {
		for _, f := range e.Fields {
			names = append(names, f.Field)
		}
	}
	return strings.Join(names, ",")
}
