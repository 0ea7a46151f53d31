package webhook_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

func TestCheckSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		secret string
		ok     bool
	}{
		{"plain 24", strings.Repeat("s", 24), true},
		{"plain 256", strings.Repeat("s", 256), true},
		{"printable punctuation and space", "a secret with ~!@#$%^&*()_+", true},
		{"whsec", secret2, true},
		{"empty", "", false},
		{"23 characters", strings.Repeat("s", 23), false},
		{"257 characters", strings.Repeat("s", 257), false},
		{"control character", strings.Repeat("s", 24) + "\n", false},
		{"non-ASCII", strings.Repeat("s", 24) + "é", false},
		{"whsec not base64", "whsec_not*base64*at*all*here", false},
		{"whsec empty payload padded", "whsec_" + strings.Repeat("=", 20), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := webhook.CheckSecret(tt.secret)
			if tt.ok != (err == nil) {
				t.Fatalf("CheckSecret(%q) = %v, want ok=%v", tt.secret, err, tt.ok)
			}
			var e *skygate.Error
			if err != nil && (!errors.As(err, &e) || e.Fields[0].Field != "secret") {
				t.Fatalf("error %v is not a validation error on secret", err)
			}
		})
	}
}

// TestSignatureInterop signs with Skygate and verifies with the Standard Webhooks
// library, for a plain secret (used verbatim) and a whsec_ secret (base64 payload).
func TestSignatureInterop(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"e1","type":"booking.status.changed","data":{"status":"Issued"}}`)
	now := time.Now()
	for _, secret := range []string{secret1, secret2} {
		t.Run(secret, func(t *testing.T) {
			t.Parallel()
			key, err := webhook.SigningKey(secret)
			if err != nil {
				t.Fatal(err)
			}
			h := http.Header{}
			webhook.SetHeaders(h, [][]byte{key}, "msg-1", now, body)
			if err := verifier(t, secret).Verify(body, h); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			// And the library's own signature equals ours.
			want, err := verifier(t, secret).Sign("msg-1", now, body)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.Get("webhook-signature"); got != want {
				t.Fatalf("signature = %q, library signs %q", got, want)
			}
			tampered := append([]byte(nil), body...)
			tampered[len(tampered)-3] = 'X'
			if err := verifier(t, secret).Verify(tampered, h); err == nil {
				t.Fatal("a tampered body verified")
			}
		})
	}
}

// TestWhsecEqualsRawKey shows the documented equivalence: whsec_ plus base64 of some
// bytes signs exactly like those bytes given as the key.
func TestWhsecEqualsRawKey(t *testing.T) {
	t.Parallel()
	raw := []byte("0123456789abcdef0123456789abcdef")
	fromWhsec, err := webhook.SigningKey("whsec_" + base64.StdEncoding.EncodeToString(raw))
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Unix(1700000000, 0)
	if a, b := webhook.Sign(fromWhsec, "m", ts, []byte("{}")), webhook.Sign(raw, "m", ts, []byte("{}")); a != b {
		t.Fatalf("whsec signature %q != raw signature %q", a, b)
	}
	lib, err := standardwebhooks.NewWebhookRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	webhook.SetHeaders(h, [][]byte{fromWhsec}, "m", ts, []byte("{}"))
	if err := lib.VerifyIgnoringTimestamp([]byte("{}"), h); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

// TestTwoSignatures: with two keys the header holds two signatures, the first key's
// first, and the library accepts either secret.
func TestTwoSignatures(t *testing.T) {
	t.Parallel()
	k1, _ := webhook.SigningKey(secret2) // new
	k2, _ := webhook.SigningKey(secret1) // previous
	body := []byte(`{"x":1}`)
	now := time.Now()
	h := http.Header{}
	webhook.SetHeaders(h, [][]byte{k1, k2}, "msg-2", now, body)
	sigs := strings.Split(h.Get("webhook-signature"), " ")
	if len(sigs) != 2 || sigs[0] != webhook.Sign(k1, "msg-2", now, body) || sigs[1] != webhook.Sign(k2, "msg-2", now, body) {
		t.Fatalf("signatures = %q, want the new key's then the previous key's", sigs)
	}
	for _, s := range []string{secret1, secret2} {
		if err := verifier(t, s).Verify(body, h); err != nil {
			t.Fatalf("Verify with %q: %v", s, err)
		}
	}
	if err := verifier(t, "another-secret-of-enough-length").Verify(body, h); err == nil {
		t.Fatal("an unrelated secret verified")
	}
}
