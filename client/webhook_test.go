package client

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// webhookVector is a delivery signed by Skygate's dispatcher: the service's
// internal/webhook tests check that it signs exactly these headers.
type webhookVector struct {
	Name      string   `json:"name"`
	Secrets   []string `json:"secrets"`
	ID        string   `json:"webhook-id"`
	Timestamp string   `json:"webhook-timestamp"`
	Body      string   `json:"body"`
	Signature string   `json:"webhook-signature"`
}

func (v webhookVector) header() http.Header {
	h := http.Header{}
	h.Set("webhook-id", v.ID)
	h.Set("webhook-timestamp", v.Timestamp)
	h.Set("webhook-signature", v.Signature)
	return h
}

func (v webhookVector) time(tb testing.TB) time.Time {
	tb.Helper()
	sec, err := strconv.ParseInt(v.Timestamp, 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return time.Unix(sec, 0)
}

func loadWebhookVectors(tb testing.TB) []webhookVector {
	tb.Helper()
	b, err := os.ReadFile("testdata/webhook-vectors.json")
	if err != nil {
		tb.Fatal(err)
	}
	var vs []webhookVector
	if err := json.Unmarshal(b, &vs); err != nil {
		tb.Fatal(err)
	}
	if len(vs) == 0 {
		tb.Fatal("no webhook vectors")
	}
	return vs
}

// TestVerifyWebhookVectors: every secret of a vector verifies its delivery, within the
// tolerance either side of its timestamp; anything changed does not.
func TestVerifyWebhookVectors(t *testing.T) {
	t.Parallel()
	for _, v := range loadWebhookVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			signed := v.time(t)
			for _, secret := range v.Secrets {
				for _, now := range []time.Time{signed, signed.Add(WebhookTolerance), signed.Add(-WebhookTolerance)} {
					if err := verifyWebhook(secret, v.header(), []byte(v.Body), now); err != nil {
						t.Errorf("secret %q at %v: %v", secret, now.Unix(), err)
					}
				}
			}
			secret := v.Secrets[0]
			tests := []struct {
				name   string
				secret string
				edit   func(h http.Header, body []byte) []byte
				now    time.Time
				want   error
			}{
				{"another secret", "another-secret-of-enough-length", nil, signed, ErrWebhookSignature},
				{"body changed", secret, func(_ http.Header, b []byte) []byte { return append(b, ' ') }, signed, ErrWebhookSignature},
				{"id changed", secret, func(h http.Header, b []byte) []byte { h.Set("webhook-id", v.ID+"x"); return b }, signed, ErrWebhookSignature},
				{"timestamp changed", secret, func(h http.Header, b []byte) []byte {
					h.Set("webhook-timestamp", strconv.FormatInt(signed.Unix()+1, 10))
					return b
				}, signed, ErrWebhookSignature},
				{"other version", secret, func(h http.Header, b []byte) []byte {
					h.Set("webhook-signature", strings.ReplaceAll(v.Signature, "v1,", "v2,"))
					return b
				}, signed, ErrWebhookSignature},
				{"no signature", secret, func(h http.Header, b []byte) []byte { h.Del("webhook-signature"); return b }, signed, ErrWebhookSignature},
				{"no id", secret, func(h http.Header, b []byte) []byte { h.Del("webhook-id"); return b }, signed, ErrWebhookSignature},
				{"too old", secret, nil, signed.Add(WebhookTolerance + time.Second), ErrWebhookTimestamp},
				{"too new", secret, nil, signed.Add(-WebhookTolerance - time.Second), ErrWebhookTimestamp},
			}
			for _, tt := range tests {
				h, body := v.header(), []byte(v.Body)
				if tt.edit != nil {
					body = tt.edit(h, body)
				}
				if err := verifyWebhook(tt.secret, h, body, tt.now); !errors.Is(err, tt.want) {
					t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
				}
			}
		})
	}
}

// TestVerifyWebhookSecrets: a whsec_ secret whose payload is not base64 is an error
// of its own, not a signature mismatch.
func TestVerifyWebhookSecrets(t *testing.T) {
	t.Parallel()
	v := loadWebhookVectors(t)[0]
	for _, secret := range []string{"", "whsec_", "whsec_not*base64"} {
		err := verifyWebhook(secret, v.header(), []byte(v.Body), v.time(t))
		if err == nil || errors.Is(err, ErrWebhookSignature) {
			t.Errorf("secret %q: %v, want a secret error", secret, err)
		}
	}
}
