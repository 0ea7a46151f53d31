package webhook_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/skygate/skygate/internal/webhook"
)

// A receiver checks a request the way Skygate signs it: the HMAC key comes from the
// secret (verbatim, or the base64 payload of a whsec_ secret), and one of the
// space-separated v1 signatures must match.
func ExampleSign() {
	body := []byte(`{"id":"0c4d6f2e-8e1b-4f7a-9c39-5b7e0a1d2c3f","type":"webhook.test"}`)
	at := time.Unix(1700000000, 0)

	plain, _ := webhook.SigningKey("a-plain-secret-of-32-characters!")
	fmt.Println(webhook.Sign(plain, "0c4d6f2e-8e1b-4f7a-9c39-5b7e0a1d2c3f", at, body))

	whsec, _ := webhook.SigningKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	h := http.Header{}
	webhook.SetHeaders(h, [][]byte{whsec, plain}, "0c4d6f2e-8e1b-4f7a-9c39-5b7e0a1d2c3f", at, body)
	fmt.Println(h.Get("webhook-id"))
	fmt.Println(h.Get("webhook-timestamp"))
	fmt.Println(h.Get("webhook-signature"))
	// Output:
	// v1,BqAcc95XftZencEny3Ga/Rz3gtgL4U9LcHCOmuqb1wM=
	// 0c4d6f2e-8e1b-4f7a-9c39-5b7e0a1d2c3f
	// 1700000000
	// v1,AA4S1lSc+86UKYUJNDrua7JuTKbssjN69Z/BASWUgLU= v1,BqAcc95XftZencEny3Ga/Rz3gtgL4U9LcHCOmuqb1wM=
}
