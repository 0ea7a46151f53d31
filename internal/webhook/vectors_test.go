package webhook_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/skygate/skygate/internal/webhook"
)

// webhookVectors are the signed deliveries the Go client's VerifyWebhook is tested
// with (the client is a module of its own, which cannot import this package).
const webhookVectors = "../../client/testdata/webhook-vectors.json"

// TestClientWebhookVectors: each vector's headers are what the dispatcher sets for its
// secrets (new first), id, timestamp and body, so the client verifies signatures as the
// service makes them.
func TestClientWebhookVectors(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(webhookVectors)
	if err != nil {
		t.Fatal(err)
	}
	var vectors []struct {
		Name      string   `json:"name"`
		Secrets   []string `json:"secrets"`
		ID        string   `json:"webhook-id"`
		Timestamp string   `json:"webhook-timestamp"`
		Body      string   `json:"body"`
		Signature string   `json:"webhook-signature"`
	}
	if err := json.Unmarshal(b, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) == 0 {
		t.Fatalf("no vectors in %s", webhookVectors)
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			var keys [][]byte
			for _, s := range v.Secrets {
				k, err := webhook.SigningKey(s)
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k)
			}
			sec, err := strconv.ParseInt(v.Timestamp, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			h := http.Header{}
			webhook.SetHeaders(h, keys, v.ID, time.Unix(sec, 0), []byte(v.Body))
			want := map[string]string{webhook.HeaderID: v.ID, webhook.HeaderTimestamp: v.Timestamp, webhook.HeaderSignature: v.Signature}
			for k, w := range want {
				if got := h.Get(k); got != w {
					t.Errorf("%s = %q, the vector says %q", k, got, w)
				}
			}
		})
	}
}
