package client_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/skygate/skygate/client"
	"github.com/skygate/skygate/client/api"
)

// New gives one typed client per listener; the token is fetched on the first call.
func ExampleNew() {
	c, err := client.New(client.Config{
		BaseURL:      "http://127.0.0.1:8080",
		MTLSURL:      "https://127.0.0.1:8443",
		ClientID:     os.Getenv("SKYGATE_CLIENT_ID"),
		ClientSecret: os.Getenv("SKYGATE_CLIENT_SECRET"),
		PKIDir:       "data/pki", // ca.pem, client.pem, client-key.pem
	})
	if err != nil {
		log.Fatal(err)
	}
	iata := "TAS"
	resp, err := c.API.ListFastTracksWithResponse(context.Background(), &api.ListFastTracksParams{Iata: &iata})
	if err != nil {
		log.Fatal(err)
	}
	if resp.JSON200 == nil {
		log.Fatalf("HTTP %d: %s", resp.StatusCode(), resp.Body) // a problem+json body
	}
	for _, ft := range resp.JSON200.Data {
		fmt.Println(ft.Id, ft.Name)
	}
}

// A webhook receiver verifies the signature with the raw body before it trusts the
// event.
func ExampleVerifyWebhook() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // the subscription's secret
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if err := client.VerifyWebhook(secret, r.Header, body); err != nil {
			http.Error(w, "invalid signature", http.StatusBadRequest)
			return
		}
		var event api.WebhookEvent
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, "invalid event", http.StatusBadRequest)
			return
		}
		// Deliveries are at least once: deduplicate by event.Id (the webhook-id).
		fmt.Println("verified", event.Type, event.Id)
		w.WriteHeader(http.StatusNoContent)
	})

	event := `{"id":"e3b0c442-98fc-4c14-9afb-f4c8996fb924","type":"webhook.test","created_at":"2026-01-01T00:00:00Z",` +
		`"account_id":"5f0c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b","data":{"message":"hello"}}`
	for _, s := range []string{secret, "whsec_c29tZSBvdGhlciBzZWNyZXQ="} {
		rec := httptest.NewRecorder()
		receiver.ServeHTTP(rec, delivery(s, "e3b0c442-98fc-4c14-9afb-f4c8996fb924", event))
		fmt.Println(rec.Code)
	}
	// Output:
	// verified webhook.test e3b0c442-98fc-4c14-9afb-f4c8996fb924
	// 204
	// 400
}

// delivery is a request signed now with secret, as Skygate sends it.
func delivery(secret, id, body string) *http.Request {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + body))
	r := httptest.NewRequest(http.MethodPost, "/webhooks/skygate", strings.NewReader(body))
	r.Header.Set("webhook-id", id)
	r.Header.Set("webhook-timestamp", ts)
	r.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return r
}
