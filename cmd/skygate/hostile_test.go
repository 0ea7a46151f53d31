package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/oauth"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/storetest"
)

// The hostile input catalogue: forged and malformed tokens, hostile login parameters,
// oversized and invalid bodies and headers, NUL bytes, absurd paging, Accept-Language
// and conditional-header abuse, sent to a real server on both engines. Every answer
// must be a clear 4xx (or the documented 2xx/3xx where the request is in fact fine),
// in the route's error format, never a 5xx; the server must log no panic and no
// failed request.

// hostileCase is one request of the catalogue.
type hostileCase struct {
	name   string
	method string // GET when empty
	mtls   bool   // send on the mTLS listener with the client certificate
	path   string
	header map[string]string
	body   string
	// want is the expected status; 0 accepts any 4xx, anyStatus anything but a 5xx.
	want int
	// format of the answer: "" problem+json for errors (any type for 2xx/3xx), "oauth"
	// for RFC 6749 error JSON, "redirect" for a 302 to the console with error=, "html"
	// for an HTML page (the eSIM install page), "any" for net/http's own answers.
	format string
	// coding is the Content-Encoding the answer must have ("identity": none); "" does
	// not check. A gzip-coded body is checked decoded.
	coding string
	// bug names a known defect: the case states the right answer, and while the server
	// still gives the wrong one the test logs it instead of failing (a 5xx still
	// fails). Once fixed, the test fails until the marker is removed.
	bug string
}

// anyStatus is a hostileCase.want that accepts every answer but a 5xx: for requests
// whose right answer differs between the engines (a filter with a NUL byte finds nothing
// in SQLite and is refused by PostgreSQL).
const anyStatus = -1

// hostileEnv is a server that lets the catalogue through the rate limits.
func hostileEnv(tb testing.TB, e engine, overrides map[string]string) map[string]string {
	env := map[string]string{
		"SKYGATE_RATE_LIMIT": "100000", "SKYGATE_RATE_BURST": "100000",
		"SKYGATE_TOKEN_RATE_LIMIT": "100000", "SKYGATE_TOKEN_RATE_BURST": "100000",
		"SKYGATE_TOKEN_SOURCE_RATE_LIMIT": "100000", "SKYGATE_TOKEN_SOURCE_RATE_BURST": "100000",
	}
	for k, v := range overrides {
		env[k] = v
	}
	return e.env(tb, env)
}

// rawClients are clients that do not validate answers against the contract (hostile
// requests are not in it) and do not follow redirects.
func (s *testServer) rawClients() (plain, mtls *http.Client) {
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), CheckRedirect: noRedirect, Timeout: 30 * time.Second},
		&http.Client{Transport: s.tlsTransport(true), CheckRedirect: noRedirect, Timeout: 30 * time.Second}
}

// runHostile sends every case and checks the answer.
func (s *testServer) runHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	plain, mtls := s.rawClients()
	for _, c := range cases {
		method := c.method
		if method == "" {
			method = http.MethodGet
		}
		base, client := s.base, plain
		if c.mtls {
			base, client = s.mtlsBase, mtls
		}
		req, err := http.NewRequest(method, base+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.body == "" {
			req.Body, req.ContentLength = http.NoBody, 0
		}
		for k, v := range c.header {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header[http.CanonicalHeaderKey(k)] = append(req.Header[http.CanonicalHeaderKey(k)], v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		coding := resp.Header.Get("Content-Encoding")
		if coding == "gzip" {
			if body, err = gunzipBody(body); err != nil {
				t.Errorf("%s: Content-Encoding gzip, but the body is not: %v", c.name, err)
			}
		}
		if c.coding != "" && coding != strings.TrimPrefix(c.coding, "identity") {
			t.Errorf("%s: Content-Encoding %q, want %s", c.name, coding, c.coding)
		}
		checkHostileAnswer(t, c, resp, body)
	}
}

// checkHostileAnswer applies the catalogue's rules to one answer.
func checkHostileAnswer(t *testing.T, c hostileCase, resp *http.Response, body []byte) {
	t.Helper()
	problems := hostileProblems(c, resp, body)
	switch {
	case resp.StatusCode >= 500:
		t.Errorf("%s: %d (server error): %.300q", c.name, resp.StatusCode, body)
	case c.bug != "" && len(problems) > 0:
		t.Logf("KNOWN BUG (%s): %s", c.bug, strings.Join(problems, "; "))
	case c.bug != "":
		t.Errorf("%s: answered as it should; the known bug %q is fixed, remove the marker", c.name, c.bug)
	default:
		for _, p := range problems {
			t.Error(p)
		}
	}
}

// hostileProblems lists what is wrong with an answer.
func hostileProblems(c hostileCase, resp *http.Response, body []byte) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, c.name+": "+fmt.Sprintf(format, args...)) }
	st := resp.StatusCode
	switch {
	case c.want == anyStatus:
	case c.want != 0 && st != c.want:
		bad("%d, want %d: %.300q", st, c.want, body)
		return out
	case c.want == 0 && (st < 400 || st > 499):
		bad("%d, want a 4xx: %.300q", st, body)
		return out
	}
	for _, leak := range []string{"goroutine ", ".go:", "sql:", "pq:", "SQLSTATE", "panic", "runtime error"} {
		if strings.Contains(string(body), leak) {
			bad("the answer leaks %q: %.300q", leak, body)
		}
	}
	if resp.Header.Get("X-Request-ID") == "" && c.format != "any" {
		bad("no X-Request-ID")
	}
	switch c.format {
	case "any":
	case "html":
		if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			bad("%d with Content-Type %q, want an HTML page: %.300q", st, ct, body)
		}
	case "oauth":
		var e struct {
			Error string `json:"error"`
		}
		if st >= 400 && (json.Unmarshal(body, &e) != nil || e.Error == "") {
			bad("%d without an OAuth error body: %.300q", st, body)
		}
	case "redirect":
		loc, err := url.Parse(resp.Header.Get("Location"))
		// Errors go back only to the whitelisted console, never elsewhere.
		if st != http.StatusFound || err != nil || loc.Query().Get("error") == "" ||
			!strings.HasPrefix(resp.Header.Get("Location"), testPublicURL+"/admin/callback?") {
			bad("%d Location %q, want a 302 to the console carrying error=", st, resp.Header.Get("Location"))
		}
	default:
		if st < 400 {
			break
		}
		var p struct {
			Code, RequestID string
			Status          int
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			bad("%d with Content-Type %q: %.300q", st, ct, body)
		} else if err := json.Unmarshal(body, &p); err != nil || p.Code == "" || p.Status != st {
			bad("%d problem %v: %.300q", st, err, body)
		}
	}
	return out
}

// checkServerLog fails the test when the server logged a panic or a failed request.
func (s *testServer) checkServerLog(t *testing.T) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "panic") || strings.Contains(line, `"msg":"request failed"`) || strings.Contains(line, `"status":5`) {
			t.Errorf("server log: %.500s", line)
		}
	}
}

// serverSigner returns a function that signs any JWS header and payload with the
// server's current signing key, to build tokens that are authentic but wrong.
func (s *testServer) serverSigner(t *testing.T) (kid string, sign func(header, payload string) string) {
	t.Helper()
	db := s.openStore()
	keys, err := db.SigningKeys(context.Background())
	if err != nil || len(keys) == 0 {
		t.Fatalf("signing keys: %v", err)
	}
	rec := keys[len(keys)-1]
	box, err := seal.New(s.config().MasterKey)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := box.Open(rec.PrivateKeyEnc, []byte("skygate/signing-key/"+rec.ID))
	if err != nil {
		t.Fatal(err)
	}
	k, err := x509.ParsePKCS8PrivateKey(pkcs8)
	if err != nil {
		t.Fatal(err)
	}
	priv := k.(*ecdsa.PrivateKey)
	return rec.ID, func(header, payload string) string { return signES256(t, priv, header, []byte(payload)) }
}

// hostileTokens are Authorization headers that must all be refused with 401 (or 403
// for an authentic token of another audience), built from a good token of c.
func (s *testServer) hostileTokens(t *testing.T, c credentials, good string) map[string]struct {
	header string
	want   int
} {
	kid, sign := s.serverSigner(t)
	parts := strings.Split(good, ".")
	now := time.Now().Unix()
	claims := func(mod func(m map[string]any)) string {
		m := map[string]any{"iss": testPublicURL, "sub": c.ClientID, "aud": testPublicURL, "client_id": c.ClientID,
			"account_id": c.AccountID, "scopes": skygate.B2BScopes, "iat": now, "exp": now + 600, "jti": skygate.NewID()}
		mod(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	head := func(extra string) string { return `{"alg":"ES256","kid":"` + kid + `","typ":"at+jwt"` + extra + `}` }
	signedWith := func(mod func(m map[string]any)) string { return sign(head(""), claims(mod)) }
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	x := b64(stranger.X.FillBytes(make([]byte, 32)))
	y := b64(stranger.Y.FillBytes(make([]byte, 32)))
	embedded := signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","jwk":{"kty":"EC","crv":"P-256","x":"`+x+`","y":"`+y+`"}}`, []byte(claims(func(map[string]any) {})))
	jku := signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","kid":"`+kid+`","jku":"http://127.0.0.1:1/jwks.json"}`, []byte(claims(func(map[string]any) {})))
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	n := elliptic.P256().Params().N
	rPlusN := new(big.Int).Add(new(big.Int).SetBytes(sig[:32]), n)
	withSig := func(raw []byte) string { return parts[0] + "." + parts[1] + "." + b64(raw) }
	rs := func(r, s *big.Int) []byte {
		out := make([]byte, 64)
		r.FillBytes(out[:32])
		s.FillBytes(out[32:])
		return out
	}
	bearer := func(tok string) string { return "Bearer " + tok }
	type tc = struct {
		header string
		want   int
	}
	cases := map[string]tc{
		"alg RS256":                {bearer(b64([]byte(`{"alg":"RS256","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + parts[1] + "." + parts[2]), 401},
		"alg ES384":                {bearer(b64([]byte(`{"alg":"ES384","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + parts[1] + "." + parts[2]), 401},
		"alg PS256":                {bearer(b64([]byte(`{"alg":"PS256","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + parts[1] + "." + parts[2]), 401},
		"alg EdDSA":                {bearer(b64([]byte(`{"alg":"EdDSA","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + parts[1] + "." + parts[2]), 401},
		"alg NONE":                 {bearer(b64([]byte(`{"alg":"NONE","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + parts[1] + "."), 401},
		"alg empty":                {bearer(b64([]byte(`{"alg":"","kid":"`+kid+`","typ":"at+jwt"}`)) + "." + parts[1] + "." + parts[2]), 401},
		"ECDSA r=s=0":              {bearer(withSig(make([]byte, 64))), 401},
		"ECDSA r=s=N":              {bearer(withSig(rs(n, n))), 401},
		"ECDSA r+N":                {bearer(withSig(rs(new(big.Int).Mod(rPlusN, new(big.Int).Lsh(big.NewInt(1), 256)), new(big.Int).SetBytes(sig[32:])))), 401},
		"ECDSA high-s twin":        {bearer(withSig(rs(new(big.Int).SetBytes(sig[:32]), new(big.Int).Sub(n, new(big.Int).SetBytes(sig[32:]))))), 401},
		"ECDSA 63-byte signature":  {bearer(withSig(sig[:63])), 401},
		"ECDSA 65-byte signature":  {bearer(withSig(append(append([]byte{}, sig...), 0))), 401},
		"ECDSA DER signature":      {bearer(withSig(append([]byte{0x30, 0x44, 0x02, 0x20}, append(append(append([]byte{}, sig[:32]...), 0x02, 0x20), sig[32:]...)...))), 401},
		"signature padded":         {bearer(parts[0] + "." + parts[1] + "." + base64.URLEncoding.EncodeToString(sig)), 401},
		"signature std alphabet":   {bearer(parts[0] + "." + parts[1] + "." + base64.StdEncoding.EncodeToString(sig)), 401},
		"signed typ JWT":           {bearer(sign(`{"alg":"ES256","kid":"`+kid+`","typ":"JWT"}`, claims(func(map[string]any) {}))), 401},
		"signed without typ":       {bearer(sign(`{"alg":"ES256","kid":"`+kid+`"}`, claims(func(map[string]any) {}))), 401},
		"signed with crit":         {bearer(sign(head(`,"crit":["exp"]`), claims(func(map[string]any) {}))), 401},
		"signed, alg twice":        {bearer(sign(`{"alg":"none","kid":"`+kid+`","typ":"at+jwt","alg":"ES256"}`, claims(func(map[string]any) {}))), 401},
		"signed, kid twice":        {bearer(sign(`{"alg":"ES256","kid":"x","typ":"at+jwt","kid":"`+kid+`"}`, claims(func(map[string]any) {}))), 401},
		"signed, claim twice":      {bearer(sign(head(""), strings.TrimSuffix(claims(func(map[string]any) {}), "}")+`,"account_id":"`+skygate.NewID()+`"}`)), 401},
		"embedded jwk":             {bearer(embedded), 401},
		"jku to elsewhere":         {bearer(jku), 401},
		"kid path traversal":       {bearer(signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","kid":"../../../../etc/passwd"}`, []byte(claims(func(map[string]any) {})))), 401},
		"kid SQL":                  {bearer(signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","kid":"' OR '1'='1"}`, []byte(claims(func(map[string]any) {})))), 401},
		"kid NUL":                  {bearer(signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","kid":"`+kid+`\u0000"}`, []byte(claims(func(map[string]any) {})))), 401},
		"kid 8 KiB":                {bearer(signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","kid":"`+strings.Repeat("k", 8<<10)+`"}`, []byte(claims(func(map[string]any) {})))), 401},
		"kid number":               {bearer(signES256(t, stranger, `{"alg":"ES256","typ":"at+jwt","kid":7}`, []byte(claims(func(map[string]any) {})))), 401},
		"aud other":                {bearer(signedWith(func(m map[string]any) { m["aud"] = "https://other.example" })), 403},
		"aud list without us":      {bearer(signedWith(func(m map[string]any) { m["aud"] = []string{"https://a.example", "https://b.example"} })), 403},
		"aud with trailing slash":  {bearer(signedWith(func(m map[string]any) { m["aud"] = testPublicURL + "/" })), 403},
		"aud missing":              {bearer(signedWith(func(m map[string]any) { delete(m, "aud") })), 403},
		"aud number":               {bearer(signedWith(func(m map[string]any) { m["aud"] = 1 })), 401},
		"iss other":                {bearer(signedWith(func(m map[string]any) { m["iss"] = "https://evil.example" })), 401},
		"iss trailing slash":       {bearer(signedWith(func(m map[string]any) { m["iss"] = testPublicURL + "/" })), 401},
		"iss upper case":           {bearer(signedWith(func(m map[string]any) { m["iss"] = strings.ToUpper(testPublicURL) })), 401},
		"iss missing":              {bearer(signedWith(func(m map[string]any) { delete(m, "iss") })), 401},
		"exp missing":              {bearer(signedWith(func(m map[string]any) { delete(m, "exp") })), 401},
		"exp string":               {bearer(signedWith(func(m map[string]any) { m["exp"] = fmt.Sprint(now + 600) })), 401},
		"exp in the past":          {bearer(signedWith(func(m map[string]any) { m["exp"] = now - 3600 })), 401},
		"exp huge":                 {bearer(signedWith(func(m map[string]any) { m["exp"] = 1e300 })), 401},
		"iat in the future":        {bearer(signedWith(func(m map[string]any) { m["iat"] = now + 3600 })), 401},
		"nbf in the future":        {bearer(signedWith(func(m map[string]any) { m["nbf"] = now + 3600 })), 401},
		"jti missing":              {bearer(signedWith(func(m map[string]any) { delete(m, "jti") })), 401},
		"scopes a string":          {bearer(signedWith(func(m map[string]any) { m["scopes"] = "esim:write" })), 401},
		"account_id missing":       {bearer(signedWith(func(m map[string]any) { delete(m, "account_id") })), 401},
		"account_id empty":         {bearer(signedWith(func(m map[string]any) { m["account_id"] = "" })), 401},
		"account_id unknown":       {bearer(signedWith(func(m map[string]any) { m["account_id"] = skygate.NewID() })), 401},
		"account_id not a UUID":    {bearer(signedWith(func(m map[string]any) { m["account_id"] = "' OR 1=1 --" })), 401},
		"payload not JSON":         {bearer(sign(head(""), "not json")), 401},
		"payload array":            {bearer(sign(head(""), "[1,2,3]")), 401},
		"payload 100 KiB":          {bearer(signedWith(func(m map[string]any) { m["x"] = strings.Repeat("x", 40<<10) })), 0},
		"five segments (JWE)":      {bearer(good + ".x.y"), 401},
		"two segments":             {bearer(parts[0] + "." + parts[1]), 401},
		"empty segments":           {bearer(".."), 401},
		"token with spaces":        {bearer(parts[0] + ". " + parts[1] + "." + parts[2]), 401},
		"token with a newline":     {bearer(parts[0] + "." + parts[1][:10] + "\t" + parts[1][10:] + "." + parts[2]), 401},
		"token twice":              {bearer(good + " " + good), 401},
		"Bearer without token":     {"Bearer", 401},
		"Bearer and a space":       {"Bearer ", 401},
		"Basic credentials":        {basic(c), 401},
		"Digest":                   {`Digest username="x"`, 401},
		"token 60 KiB":             {bearer(strings.Repeat("a", 60<<10)), 0},
		"token of another service": {bearer("eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + parts[2]), 401},
	}
	return cases
}

func TestHostileTokens(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, hostileEnv(t, e, nil))
		c := s.mustBootstrap("hostile", skygate.B2BScopes, "--sandbox")
		good := s.mustToken(c, "")
		var cases []hostileCase
		for name, tc := range s.hostileTokens(t, c, good) {
			for _, target := range []struct {
				name, path string
				mtls       bool
			}{{"catalog", "/v2/catalog/lounges?limit=1", false}, {"booking", bookingPath, true}, {"webhooks", "/api/v1/b2b/webhooks", false}} {
				cases = append(cases, hostileCase{name: name + " on " + target.name, path: target.path, mtls: target.mtls,
					header: map[string]string{"Authorization": tc.header}, want: tc.want})
			}
		}
		// Two Authorization headers, one of them good.
		cases = append(cases, hostileCase{name: "two Authorization headers", path: "/v2/catalog/lounges?limit=1",
			header: map[string]string{"Authorization": "Bearer " + good, "authorization": "Bearer x.y.z"}, want: 401})
		s.runHostile(t, cases)
		// The good token still works: nothing above disturbed the verifier's cache.
		if resp, body := s.get("/v2/catalog/lounges?limit=1", good, nil); resp.StatusCode != 200 {
			t.Errorf("good token after the catalogue: %d %s", resp.StatusCode, body)
		}
		s.checkServerLog(t)
	})
}

// TestHostileRequests covers bodies, headers, paging, language and conditional
// headers, paths and methods.
func TestHostileRequests(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, hostileEnv(t, e, nil))
		c := s.mustBootstrap("hostile", skygate.B2BScopes, "--sandbox")
		tok := s.mustToken(c, "")
		ft := s.firstFastTrack(tok)
		bookingID := s.mustBook(tok, "hostile-1", ft, "H-1").ID
		// Cancels as old clients send them: an empty body labelled with another media type.
		formCancel := s.mustBook(tok, "hostile-2", ft, "H-2").ID
		plainCancel := s.mustBook(tok, "hostile-3", ft, "H-3").ID
		_, lounges := s.get("/v2/catalog/lounges?limit=5", tok, nil)
		etagResp, _ := s.get("/v2/catalog/lounges?limit=5", tok, nil)
		etag := etagResp.Header.Get("ETag")
		const bigPage = "/v2/catalog/lounges?limit=20" // over 1 KiB, so gzip-coded when accepted
		admin := s.adminToken()
		pkg := s.seedESIMCatalog(c.AccountID, 2)

		auth := map[string]string{"Authorization": "Bearer " + tok}
		with := func(kv ...string) map[string]string {
			h := map[string]string{"Authorization": "Bearer " + tok}
			for i := 0; i < len(kv); i += 2 {
				h[kv[i]] = kv[i+1]
			}
			return h
		}
		jsonH := func(kv ...string) map[string]string {
			return with(append([]string{"Content-Type", "application/json"}, kv...)...)
		}
		adminJSON := map[string]string{"Authorization": "Bearer " + admin, "Content-Type": "application/json"}
		valid := bookingBody(ft, "H-2")
		withNUL := func(field string) string { return strings.Replace(valid, `"`+field+`":"`, `"`+field+`":"a\u0000`, 1) }
		const order = "/v2/b2b/esim/orders"
		nested := strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000)

		cases := []hostileCase{
			// Bodies.
			{name: "booking body over 1 MiB", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "big"),
				body: `{"partner_reference":"` + strings.Repeat("x", 1<<20) + `"}`, want: 413},
			{name: "booking body not JSON", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "nj"), body: "<xml/>", want: 400},
			{name: "booking body truncated", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "tr"), body: valid[:40], want: 400},
			{name: "booking body nested 100k deep", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "deep"), body: nested},
			{name: "booking body two values", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "two"), body: valid + valid, want: 400},
			{name: "booking body an array", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "arr"), body: "[" + valid + "]"},
			{name: "booking body with BOM", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "bom"), body: "\ufeff" + valid},
			{name: "booking body as text/plain", method: "POST", mtls: true, path: bookingPath, header: with("Content-Type", "text/plain", "Idempotency-Key", "tp"), body: valid, want: 415},
			{name: "booking body without Content-Type", method: "POST", mtls: true, path: bookingPath, header: with("Idempotency-Key", "noct"), body: valid, want: 415},
			{name: "booking body Content-Type garbage", method: "POST", mtls: true, path: bookingPath, header: with("Content-Type", "application/json; charset=\"", "Idempotency-Key", "ctg"), body: valid, want: 415},
			{name: "booking with NUL in partner_reference", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "nul-1"), body: withNUL("partner_reference")},
			{name: "booking with NUL in first_name", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "nul-2"), body: withNUL("first_name")},
			{name: "booking with NUL in flight number", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "nul-3"), body: withNUL("number")},
			{name: "booking with NUL in fast_track_id", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "nul-4"), body: withNUL("fast_track_id")},
			// Invalid UTF-8 and a repeated member are refused, as on every route: which of
			// two values was meant is a guess.
			{name: "booking with invalid UTF-8", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "utf"), body: strings.Replace(valid, "Aziza", "Az\xff\xfeza", 1), want: 400},
			{name: "booking with 10k passengers", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "many"),
				body: strings.Replace(valid, `"passengers":[`, `"passengers":[`+strings.Repeat(`{"first_name":"A","last_name":"B"},`, 10_000), 1)},
			{name: "booking with a number 1e999", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "num"), body: strings.Replace(valid, `"HY601"`, `1e999`, 1)},
			{name: "booking with a duplicate key", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "dup"), body: strings.Replace(valid, `{"fast_track_id"`, `{"fast_track_id":"x","fast_track_id"`, 1), want: 400},
			{name: "booking with the service date 9999-12-31", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "date"), body: strings.Replace(valid, time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly), "9999-12-31", 1)},
			{name: "eSIM order with NUL in partner_reference", method: "POST", path: order, header: jsonH("Idempotency-Key", "o-nul"), body: `{"package_id":"` + pkg + `","quantity":1,"partner_reference":"a\u0000b"}`},
			{name: "eSIM order with NUL in package_id", method: "POST", path: order, header: jsonH("Idempotency-Key", "o-nul2"), body: `{"package_id":"` + pkg + `\u0000","quantity":1}`},
			{name: "eSIM order with a reference of 1000 characters", method: "POST", path: order, header: jsonH("Idempotency-Key", "o-long"), body: `{"package_id":"` + pkg + `","quantity":1,"partner_reference":"` + strings.Repeat("r", 1000) + `"}`},
			{name: "eSIM top-up with NUL in package_id", method: "POST", path: "/v2/b2b/esims/8999901000000000013/topups", header: jsonH("Idempotency-Key", "t-nul"), body: `{"package_id":"a\u0000"}`},
			{name: "sandbox usage of -1 MB", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/usage", header: jsonH(), body: `{"used_mb":-1}`},
			{name: "eSIM cancel body not JSON", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: jsonH(), body: "<xml/>", want: 400},
			{name: "eSIM cancel with an unknown field", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: jsonH(), body: `{"refund":true}`, want: 400},
			{name: "eSIM cancel body an array", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: jsonH(), body: `[]`, want: 400},
			{name: "eSIM cancel body null", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: jsonH(), body: `null`, want: 400},
			{name: "eSIM cancel body null in white space", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: jsonH(), body: " null\n", want: 400},
			{name: "eSIM cancel body as text/plain", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: with("Content-Type", "text/plain"), body: `{}`, want: 415},
			{name: "eSIM cancel body over 1 MiB", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: jsonH(), body: `{"x":"` + strings.Repeat("x", 1<<20) + `"}`, want: 413},
			{name: "eSIM cancel of an unknown eSIM with white space as a form", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: with("Content-Type", "application/x-www-form-urlencoded"), body: " ", want: 404},
			{name: "eSIM cancel of an unknown eSIM with {}", method: "POST", path: "/v2/b2b/esims/8999901000000000013/cancel", header: jsonH(), body: `{}`, want: 404},
			{name: "eSIM cancel iccid SQL", method: "POST", path: "/v2/b2b/esims/1%27%20OR%20%271%27%3D%271/cancel", header: auth, want: 404},
			{name: "eSIM cancel iccid with NUL", method: "POST", path: "/v2/b2b/esims/8999901000000000013%00/cancel", header: auth, want: 404},
			{name: "webhook with NUL in url", method: "POST", path: "/api/v1/b2b/webhooks", header: jsonH(), body: `{"url":"https://example.com/\u0000","secret":"aaaaaaaaaaaaaaaaaaaaaaaa"}`, want: 422},
			{name: "eSIM order with two Idempotency-Key headers", method: "POST", path: order, header: jsonH("Idempotency-Key", "o-two-a", "idempotency-key", "o-two-b"), body: `{"package_id":"` + pkg + `","quantity":1}`, want: 400},
			{name: "eSIM top-up with two Idempotency-Key headers", method: "POST", path: "/v2/b2b/esims/8999901000000000013/topups", header: jsonH("Idempotency-Key", "t-two-a", "idempotency-key", "t-two-b"), body: `{"package_id":"` + pkg + `"}`, want: 400},
			{name: "eSIM order quantity 2^63", method: "POST", path: order, header: jsonH("Idempotency-Key", "o-big"), body: `{"package_id":"` + skygate.NewID() + `","quantity":9223372036854775808}`},
			{name: "eSIM order quantity -1", method: "POST", path: order, header: jsonH("Idempotency-Key", "o-neg"), body: `{"package_id":"` + skygate.NewID() + `","quantity":-1}`, want: 422},
			{name: "webhook with NUL in secret", method: "POST", path: "/api/v1/b2b/webhooks", header: jsonH(), body: `{"url":"https://example.com/","secret":"aaaaaaaaaaaaaaaaaaaaaaaa\u0000"}`, want: 422},
			{name: "simulate with an unknown field", method: "POST", mtls: true, path: "/v2/sandbox/booking/fast-tracks/" + bookingID + "/simulate", header: jsonH(), body: `{"event":"issue","x":1}`, want: 400},
			{name: "quote body over 1 MiB", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(),
				body: `{"partner_reference":"` + strings.Repeat("x", 1<<20) + `"}`, want: 413},
			{name: "quote body not JSON", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(), body: "<xml/>", want: 400},
			{name: "quote body two values", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(), body: valid + valid, want: 400},
			{name: "quote with NUL in fast_track_id", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(), body: withNUL("fast_track_id"), want: 422},
			{name: "quote naming a quote", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(),
				body: strings.Replace(valid, `{"fast_track_id"`, `{"quote_id":"`+skygate.NewID()+`","fast_track_id"`, 1), want: 422},
			{name: "quote as text/plain", method: "POST", mtls: true, path: bookingPath + "/quotes", header: with("Content-Type", "text/plain"), body: valid, want: 415},
			{name: "booking with NUL in quote_id", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "q-nul"),
				body: strings.Replace(valid, `{"fast_track_id"`, `{"quote_id":"a\u0000","fast_track_id"`, 1), want: 422},
			{name: "booking with a quote_id of 8 KiB", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "q-long"),
				body: strings.Replace(valid, `{"fast_track_id"`, `{"quote_id":"`+strings.Repeat("q", 8<<10)+`","fast_track_id"`, 1), want: 422},
			{name: "booking with a quote_id number", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "q-num"),
				body: strings.Replace(valid, `{"fast_track_id"`, `{"quote_id":7,"fast_track_id"`, 1), want: 422},
			{name: "cancel with an unknown field", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(), body: `{"x":1}`, want: 400},
			{name: "cancel with a body an array", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(), body: `[]`, want: 400},
			{name: "cancel expecting 2^63", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":9223372036854775808,"currency":"USD"}}`, want: 400},
			{name: "cancel expecting -1", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":-1,"currency":"USD"}}`, want: 422},
			{name: "cancel expecting NUL currency", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"currency":"US\u0000"}}`, want: 422},
			{name: "cancel as text/plain", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: with("Content-Type", "text/plain"), body: `{}`, want: 415},
			{name: "cancel with a body not JSON as text/plain", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: with("Content-Type", "text/plain"), body: "cancel", want: 415},
			{name: "cancel with an empty form body", method: "POST", mtls: true, path: bookingPath + "/" + formCancel + "/cancel",
				header: with("Content-Type", "application/x-www-form-urlencoded"), body: "", want: 200},
			{name: "cancel with a blank text/plain body", method: "POST", mtls: true, path: bookingPath + "/" + plainCancel + "/cancel",
				header: with("Content-Type", "text/plain"), body: " \r\n", want: 200},
			{name: "cancellation of NUL", mtls: true, path: bookingPath + "/a%00/cancellation", header: auth, want: 404},
			{name: "cancellation of 8 KiB", mtls: true, path: bookingPath + "/" + strings.Repeat("b", 8<<10) + "/cancellation", header: auth, want: 404},
			{name: "cancellation of an unknown booking", mtls: true, path: bookingPath + "/" + skygate.NewID() + "/cancellation", header: auth, want: 404},
			{name: "cancellation of SQL", mtls: true, path: bookingPath + "/1%27%20OR%20%271%27%3D%271/cancellation", header: auth, want: 404},
			{name: "cancellation with a JSON body", mtls: true, path: bookingPath + "/" + bookingID + "/cancellation", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"currency":"USD"}}`, want: 200},
			{name: "cancellation with a body not JSON", mtls: true, path: bookingPath + "/" + bookingID + "/cancellation", header: jsonH(), body: "<xml/>", want: 200},
			{name: "cancellation with a query", mtls: true, path: bookingPath + "/" + bookingID + "/cancellation?at=9999-12-31T00:00:00Z&" + strings.Repeat("x=%00&", 500), header: auth, want: 200},
			{name: "cancellation as POST", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancellation", header: jsonH(), body: `{}`, want: 405},
			{name: "cancel expecting a string amount", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":"5000","currency":"USD"}}`, want: 400},
			{name: "cancel expecting 1.5", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1.5,"currency":"USD"}}`, want: 400},
			{name: "cancel expecting 1e999", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1e999,"currency":"USD"}}`, want: 400},
			{name: "cancel expecting a string", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":"5000 USD"}`, want: 400},
			{name: "cancel expecting an array", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":[{"amount":1,"currency":"USD"}]}`, want: 400},
			{name: "cancel expecting an unknown member", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"currency":"USD","fee":1}}`, want: 400},
			{name: "cancel expecting two amounts", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"amount":0,"currency":"USD"}}`, want: 400},
			{name: "cancel expecting no currency", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1}}`, want: 422},
			{name: "cancel expecting lower-case currency", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"currency":"usd"}}`, want: 422},
			{name: "cancel expecting a currency of 8 KiB", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"currency":"` + strings.Repeat("U", 8<<10) + `"}}`, want: 422},
			{name: "cancel expecting a refund of an unpriced booking", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"currency":"USD"}}`, want: 409},
			{name: "cancel body nested 100k deep", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(), body: `{"expected_refund":` + nested + `}`, want: 400},
			{name: "cancel body over 1 MiB", method: "POST", mtls: true, path: bookingPath + "/" + bookingID + "/cancel", header: jsonH(),
				body: `{"expected_refund":{"amount":1,"currency":"` + strings.Repeat("U", 1<<20) + `"}}`, want: 413},
			{name: "quote body empty object", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(), body: `{}`, want: 422},
			{name: "quote body null", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(), body: `null`, want: 0},
			{name: "quote body an array", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(), body: "[" + valid + "]", want: 400},
			{name: "quote body nested 100k deep", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(), body: nested, want: 0},
			{name: "quote with an unknown passenger type", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(),
				body: strings.Replace(valid, `"first_name":"Aziza"`, `"type":"alien","first_name":"Aziza"`, 1), want: 422},
			{name: "quote with scheduled_at 25:99", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(),
				body: strings.Replace(valid, `"direction":"departure"}`, `"direction":"departure","scheduled_at":"`+time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)+`T25:99"}`, 1), want: 422},
			{name: "quote with scheduled_at of 8 KiB", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(),
				body: strings.Replace(valid, `"direction":"departure"}`, `"direction":"departure","scheduled_at":"`+strings.Repeat("9", 8<<10)+`"}`, 1), want: 422},
			{name: "quote with 10k passengers", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH(),
				body: strings.Replace(valid, `"passengers":[`, `"passengers":[`+strings.Repeat(`{"first_name":"A","last_name":"B","type":"infant"},`, 10_000), 1), want: 0},
			{name: "quote with an Idempotency-Key of 256 characters", method: "POST", mtls: true, path: bookingPath + "/quotes", header: jsonH("Idempotency-Key", strings.Repeat("k", 256)), body: valid, want: 0},

			// The availability of a fast-track (a shared catalog read with the account's price).
			{name: "availability without a date", path: "/v2/catalog/fast-tracks/" + ft + "/availability", header: auth, want: 400},
			{name: "availability of 2026-02-30", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=2026-02-30", header: auth, want: 400},
			{name: "availability of 9999-12-31", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=9999-12-31", header: auth, want: 400},
			{name: "availability of 0000-01-01", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=0000-01-01", header: auth, want: 400},
			{name: "availability of a date-time", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + time.Now().UTC().AddDate(0, 0, 7).Format(time.RFC3339), header: auth, want: 400},
			{name: "availability of a date with NUL", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=2030-01-01%00", header: auth, want: 400},
			{name: "availability of a date of 8 KiB", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + strings.Repeat("2", 8<<10), header: auth, want: 400},
			{name: "availability of a date +2030-1-1", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=%2B2030-1-1", header: auth, want: 400},
			{name: "availability of SQL", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=%27%20OR%201%3D1--", header: auth, want: 400},
			{name: "availability with two dates", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly) + "&date=nonsense", header: auth, want: 200},
			{name: "availability with a query of 6 KiB", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly) + "&" + strings.Repeat("x=%00&", 1000), header: auth, want: 200},
			{name: "availability of an unknown fast-track", path: "/v2/catalog/fast-tracks/" + skygate.NewID() + "/availability?date=" + time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly), header: auth, want: 404},
			{name: "availability of a fast-track id not a UUID", path: "/v2/catalog/fast-tracks/not-a-uuid/availability?date=" + time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly), header: auth, want: 404},
			{name: "availability of a fast-track id with NUL", path: "/v2/catalog/fast-tracks/a%00/availability?date=2030-01-01", header: auth, want: 404},
			{name: "availability of a fast-track id of 8 KiB", path: "/v2/catalog/fast-tracks/" + strings.Repeat("f", 8<<10) + "/availability?date=2030-01-01", header: auth, want: 404},
			{name: "availability without a token", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=2030-01-01", want: 401},
			{name: "availability with If-None-Match *", path: "/v2/catalog/fast-tracks/" + ft + "/availability?date=" + time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly), header: with("If-None-Match", "*"), want: 200},
			{name: "admin account name with NUL", method: "POST", path: "/api/v1/admin/accounts", header: adminJSON, body: `{"name":"evil\u0000corp"}`},
			{name: "admin application name with NUL", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app\u0000","allowed_scopes":["catalog.lounges:read"]}`},
			{name: "admin application audience with NUL", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app","allowed_scopes":["catalog.lounges:read"],"audiences":["https://api.example.com/\u0000"]}`, want: 422},
			{name: "admin application audience relative", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app","allowed_scopes":["catalog.lounges:read"],"audiences":["/api"]}`, want: 422},
			{name: "admin application audience with a fragment", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app","allowed_scopes":["catalog.lounges:read"],"audiences":["https://api.example.com/#x"]}`, want: 422},
			{name: "admin application audience of 64 KiB", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app","allowed_scopes":["catalog.lounges:read"],"audiences":["https://a.example/` + strings.Repeat("a", 64<<10) + `"]}`},
			{name: "admin application 10k audiences", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app","allowed_scopes":["catalog.lounges:read"],"audiences":[` + strings.TrimSuffix(strings.Repeat(`"https://a.example",`, 10000), ",") + `]}`},
			{name: "admin application audiences a string", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app","allowed_scopes":["catalog.lounges:read"],"audiences":"https://a.example"}`, want: 400},
			{name: "admin application audience a number", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/applications", header: adminJSON,
				body: `{"name":"app","allowed_scopes":["catalog.lounges:read"],"audiences":[1]}`, want: 400},
			{name: "admin pool CSV with NUL", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/pool",
				header: map[string]string{"Authorization": "Bearer " + admin, "Content-Type": "text/csv"}, body: "iccid,smdp_address,matching_id\n8999901000000000013,smdp.example.com,M\x00X\n"},
			{name: "admin account id with NUL", path: "/api/v1/admin/accounts/%00", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin account bookings of NUL", path: "/api/v1/admin/accounts/a%00/bookings", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin application id with NUL", path: "/api/v1/admin/applications/a%00", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin booking id with NUL", path: "/api/v1/admin/bookings/a%00", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin audit filter with NUL", path: "/api/v1/admin/audit-events?account_id=a%00&actor=%00&action=%00", header: map[string]string{"Authorization": "Bearer " + admin}, want: anyStatus},
			{name: "admin accounts with unknown parameters", path: "/api/v1/admin/accounts?status=%00&name=%00", header: map[string]string{"Authorization": "Bearer " + admin}, want: 200},
			{name: "admin PATCH account status NUL", method: "PATCH", path: "/api/v1/admin/accounts/" + c.AccountID, header: adminJSON, body: `{"status":"active\u0000"}`, want: 422},
			{name: "admin packages with NUL in a name", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/packages", header: adminJSON,
				body: `[{"id":"` + skygate.NewID() + `","name":{"en":"x\u0000"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"},"active":true}]`},
			{name: "admin package APN name with NUL", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/packages", header: adminJSON,
				body: `[{"id":"` + skygate.NewID() + `","name":{"en":"x","ru":"x","uz":"x","kk":"x"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"},"apn":{"name":"a\u0000"}}]`, want: 422},
			{name: "admin package APN password of 64 KiB", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/packages", header: adminJSON,
				body: `[{"id":"` + skygate.NewID() + `","name":{"en":"x","ru":"x","uz":"x","kk":"x"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"},"apn":{"name":"a","password":"` + strings.Repeat("p", 64<<10) + `"}}]`, want: 422},
			{name: "admin package APN a string", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/packages", header: adminJSON,
				body: `[{"id":"` + skygate.NewID() + `","name":{"en":"x","ru":"x","uz":"x","kk":"x"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"},"apn":"internet"}]`, want: 400},
			{name: "admin package refund window 2^63", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/packages", header: adminJSON,
				body: `[{"id":"` + skygate.NewID() + `","name":{"en":"x","ru":"x","uz":"x","kk":"x"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"},"refund_window_days":9223372036854775808}]`, want: 400},
			{name: "admin package refund window 366", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/packages", header: adminJSON,
				body: `[{"id":"` + skygate.NewID() + `","name":{"en":"x","ru":"x","uz":"x","kk":"x"},"countries":["UZ"],"data_mb":1,"validity_days":1,"price":{"amount":1,"currency":"USD"},"refund_window_days":366}]`, want: 422},
			{name: "admin credit with NUL", method: "POST", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/credits", header: adminJSON,
				body: `{"amount":{"amount":1,"currency":"US\u0000"},"description":"x"}`, want: 422},
			{name: "admin billing of NUL", path: "/api/v1/admin/accounts/a%00/esim/billing", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin billing of an account of 8 KiB", path: "/api/v1/admin/accounts/" + strings.Repeat("a", 8<<10) + "/esim/billing", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin billing offset -5", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/billing?offset=-5", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},
			{name: "admin account billing of NUL", path: "/api/v1/admin/accounts/a%00/billing", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin account billing offset -5", path: "/api/v1/admin/accounts/" + c.AccountID + "/billing?offset=-5", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},
			{name: "admin orders of NUL", path: "/api/v1/admin/accounts/%00/esim/orders", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin orders of an unknown account", path: "/api/v1/admin/accounts/" + skygate.NewID() + "/esim/orders", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin orders limit 2^63", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/orders?limit=9223372036854775807", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},
			{name: "admin orders Accept-Language garbage", path: "/api/v1/admin/accounts/" + c.AccountID + "/esim/orders", header: map[string]string{"Authorization": "Bearer " + admin, "Accept-Language": ";;;q=abc,,*;q=-1"}, want: 200},
			{name: "admin eSIMs of NUL", path: "/api/v1/admin/accounts/a%00/esims", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin eSIMs status garbage", path: "/api/v1/admin/accounts/" + c.AccountID + "/esims?status=%27%20OR%201%3D1", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},
			{name: "admin eSIMs status NUL", path: "/api/v1/admin/accounts/" + c.AccountID + "/esims?status=%00", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},
			{name: "admin eSIMs order_id with NUL", path: "/api/v1/admin/accounts/" + c.AccountID + "/esims?order_id=a%00", header: map[string]string{"Authorization": "Bearer " + admin}, want: anyStatus},
			{name: "admin webhooks of NUL", path: "/api/v1/admin/accounts/a%00/webhooks", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin webhooks of SQL", path: "/api/v1/admin/accounts/1%27%20OR%20%271%27%3D%271/webhooks", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin deliveries of a webhook id with NUL", path: "/api/v1/admin/accounts/" + c.AccountID + "/webhooks/a%00/deliveries", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin deliveries of an account with NUL", path: "/api/v1/admin/accounts/a%00/webhooks/" + skygate.NewID() + "/deliveries", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin deliveries limit 2^63", path: "/api/v1/admin/accounts/" + c.AccountID + "/webhooks/" + skygate.NewID() + "/deliveries?limit=9223372036854775807", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},

			// Fast-track prices and capacities: nothing here is stored (every body is
			// refused), so the account's bookings keep booking without prices.
			{name: "admin prices with NUL in fast_track_id", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON,
				body: `[{"fast_track_id":"` + ft + `\u0000","currency":"USD","adult":1000}]`, want: 422},
			{name: "admin prices with NUL in currency", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON,
				body: `[{"fast_track_id":"` + ft + `","currency":"US\u0000","adult":1000}]`, want: 422},
			{name: "admin prices adult 2^63", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON,
				body: `[{"fast_track_id":"` + ft + `","currency":"USD","adult":9223372036854775808}]`, want: 400},
			{name: "admin prices adult 10^13", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON,
				body: `[{"fast_track_id":"` + ft + `","currency":"USD","adult":10000000000000,"child":-1}]`, want: 422},
			{name: "admin prices 1001 items", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON,
				body: "[" + strings.TrimSuffix(strings.Repeat(`{"fast_track_id":"`+ft+`","currency":"USD","adult":1},`, 1001), ",") + "]", want: 422},
			{name: "admin prices an object", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON,
				body: `{"fast_track_id":"` + ft + `","currency":"USD","adult":1}`, want: 400},
			{name: "admin prices null item", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON, body: `[null]`, want: 422},
			{name: "admin prices null", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON, body: `null`, want: 422},
			{name: "admin prices a number", method: "PUT", path: "/api/v1/admin/accounts/" + c.AccountID + "/fast-track-prices", header: adminJSON, body: `7`, want: 400},
			{name: "admin prices of NUL", method: "PUT", path: "/api/v1/admin/accounts/a%00/fast-track-prices", header: adminJSON, body: `[]`, want: 404},
			{name: "admin prices of SQL", path: "/api/v1/admin/accounts/1%27%20OR%20%271%27%3D%271/fast-track-prices", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin fast-tracks Accept-Language garbage", path: "/api/v1/admin/fast-tracks", header: map[string]string{"Authorization": "Bearer " + admin, "Accept-Language": ";;;q=abc,,*;q=-1"}, want: 200},
			{name: "admin fast-tracks with unknown parameters", path: "/api/v1/admin/fast-tracks?hub=%00&limit=-1", header: map[string]string{"Authorization": "Bearer " + admin}, want: 200},
			{name: "admin fast-tracks with a partner token", path: "/api/v1/admin/fast-tracks", header: auth, want: 403},
			{name: "admin capacity of NUL", path: "/api/v1/admin/fast-tracks/a%00/capacity", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin capacity -1", method: "PUT", path: "/api/v1/admin/fast-tracks/" + ft + "/capacity", header: adminJSON, body: `{"capacity_per_slot":-1}`, want: 422},
			{name: "admin capacity 1e999", method: "PUT", path: "/api/v1/admin/fast-tracks/" + ft + "/capacity", header: adminJSON, body: `{"capacity_per_slot":1e999}`, want: 400},
			{name: "admin capacity a string", method: "PUT", path: "/api/v1/admin/fast-tracks/" + ft + "/capacity", header: adminJSON, body: `{"capacity_per_slot":"60"}`, want: 400},
			{name: "admin capacity missing", method: "PUT", path: "/api/v1/admin/fast-tracks/" + ft + "/capacity", header: adminJSON, body: `{}`, want: 422},
			{name: "admin capacity of an unknown fast-track", method: "PUT", path: "/api/v1/admin/fast-tracks/" + skygate.NewID() + "/capacity", header: adminJSON, body: `{"capacity_per_slot":5}`, want: 404},
			{name: "admin capacity reset of NUL", method: "DELETE", path: "/api/v1/admin/fast-tracks/a%00/capacity", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin capacity reset of SQL", method: "DELETE", path: "/api/v1/admin/fast-tracks/1%27%20OR%20%271%27%3D%271/capacity", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin capacity reset of an unknown fast-track", method: "DELETE", path: "/api/v1/admin/fast-tracks/" + skygate.NewID() + "/capacity", header: map[string]string{"Authorization": "Bearer " + admin}, want: 404},
			{name: "admin capacity reset with a partner token", method: "DELETE", path: "/api/v1/admin/fast-tracks/" + ft + "/capacity", header: auth, want: 403},
			{name: "admin capacity reset without a token", method: "DELETE", path: "/api/v1/admin/fast-tracks/" + ft + "/capacity", want: 401},

			// Headers.
			{name: "Idempotency-Key 256 characters", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", strings.Repeat("k", 256)), body: valid, want: 400},
			{name: "Idempotency-Key non-ASCII", method: "POST", mtls: true, path: bookingPath, header: jsonH("Idempotency-Key", "ключ"), body: valid, want: 400},
			{name: "Idempotency-Key twice", method: "POST", mtls: true, path: bookingPath, header: map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json", "Idempotency-Key": "a", "idempotency-key": "b"}, body: valid, want: 400},
			{name: "X-Request-ID 129 characters", path: "/v2/catalog/lounges?limit=1", header: with("X-Request-ID", strings.Repeat("r", 129)), want: 200},
			{name: "X-Request-ID with a quote", path: "/v2/catalog/lounges?limit=1", header: with("X-Request-ID", `"><script>`), want: 200},
			{name: "header of 128 KiB", path: "/v2/catalog/lounges?limit=1", header: with("X-Padding", strings.Repeat("p", 128<<10)), want: 431, format: "any"},
			{name: "Host header garbage", path: "/v2/catalog/lounges?limit=1", header: with("Host", "evil.example:99999"), want: 200},

			// Accept-Language, Accept and conditional headers: legitimately fine.
			{name: "Accept-Language garbage", path: "/v2/catalog/lounges?limit=1", header: with("Accept-Language", ";;;q=abc,,*;q=-1"), want: 200},
			{name: "Accept-Language 8 KiB", path: "/v2/catalog/lounges?limit=1", header: with("Accept-Language", strings.Repeat("xx-YY;q=0.1, ", 700)), want: 200},
			{name: "Accept-Language non-ASCII", path: "/v2/catalog/lounges?limit=1", header: with("Accept-Language", "рус, 中文;q=0.9"), want: 200},
			{name: "Accept-Language q > 1", path: "/v2/catalog/lounges?limit=1", header: with("Accept-Language", "ru;q=999, en"), want: 200},
			{name: "If-None-Match garbage", path: "/v2/catalog/lounges?limit=5", header: with("If-None-Match", `W/W/"""`), want: 200},
			{name: "If-None-Match 8 KiB list", path: "/v2/catalog/lounges?limit=5", header: with("If-None-Match", strings.Repeat(`"x", `, 1500)+etag), want: 304, format: "any"},
			{name: "If-None-Match *", path: "/v2/catalog/lounges?limit=5", header: with("If-None-Match", "*"), want: 304, format: "any"},
			{name: "If-None-Match without quotes", path: "/v2/catalog/lounges?limit=5", header: with("If-None-Match", strings.Trim(strings.TrimPrefix(etag, "W/"), `"`)), want: 200},
			{name: "If-Modified-Since garbage", path: "/v2/catalog/lounges?limit=5", header: with("If-Modified-Since", "yesterday"), want: 200},
			{name: "If-Modified-Since year 0", path: "/v2/catalog/lounges?limit=5", header: with("If-Modified-Since", "Mon, 01 Jan 0000 00:00:00 GMT"), want: 200},
			{name: "If-Modified-Since year 9999", path: "/v2/catalog/lounges?limit=5", header: with("If-Modified-Since", "Fri, 31 Dec 9999 23:59:59 GMT"), want: 304, format: "any"},
			{name: "If-Modified-Since with If-None-Match mismatch", path: "/v2/catalog/lounges?limit=5", header: with("If-None-Match", `"nope"`, "If-Modified-Since", "Fri, 31 Dec 9999 23:59:59 GMT"), want: 200},
			{name: "Accept image/png on JSON", path: "/v2/catalog/lounges?limit=1", header: with("Accept", "image/png"), want: 200},

			// Accept-Encoding (RFC 9110 §12.5.3: q=0 refuses, "*" stands for what is not
			// named); an answer no coding suits is sent as it is, never refused.
			{name: "Accept-Encoding gzip", path: bigPage, header: with("Accept-Encoding", "gzip"), want: 200, coding: "gzip"},
			{name: "Accept-Encoding gzip;q=0", path: bigPage, header: with("Accept-Encoding", "gzip;q=0"), want: 200, coding: "identity"},
			{name: "Accept-Encoding *;q=0", path: bigPage, header: with("Accept-Encoding", "*;q=0"), want: 200, coding: "identity"},
			{name: "Accept-Encoding identity;q=0", path: bigPage, header: with("Accept-Encoding", "identity;q=0"), want: 200, coding: "identity"},
			{name: "Accept-Encoding identity;q=0, *;q=0", path: bigPage, header: with("Accept-Encoding", "identity;q=0, *;q=0"), want: 200, coding: "identity"},
			{name: "Accept-Encoding *", path: bigPage, header: with("Accept-Encoding", "*"), want: 200, coding: "gzip"},
			{name: "Accept-Encoding *;q=0, gzip", path: bigPage, header: with("Accept-Encoding", "*;q=0, gzip"), want: 200, coding: "gzip"},
			{name: "Accept-Encoding gzip;q=0, *", path: bigPage, header: with("Accept-Encoding", "gzip;q=0, *"), want: 200, coding: "identity"},
			{name: "Accept-Encoding br and zstd only", path: bigPage, header: with("Accept-Encoding", "br, zstd"), want: 200, coding: "identity"},
			{name: "Accept-Encoding q garbage", path: bigPage, header: with("Accept-Encoding", "gzip;q=abc, *;q=NaN, deflate;q=-1"), want: 200, coding: "identity"},
			{name: "Accept-Encoding q 1e999", path: bigPage, header: with("Accept-Encoding", "GZIP;Q=1e999"), want: 200, coding: "gzip"},
			{name: "Accept-Encoding 10 KiB list", path: bigPage, header: with("Accept-Encoding", strings.Repeat("br;q=0.5, ", 1000)+"gzip"), want: 200, coding: "gzip"},
			{name: "Accept-Encoding 10 KiB garbage", path: bigPage, header: with("Accept-Encoding", strings.Repeat(";,x=", 2560)), want: 200, coding: "identity"},
			{name: "Accept-Encoding gzip on HEAD", method: "HEAD", path: bigPage, header: with("Accept-Encoding", "gzip"), want: 200, coding: "identity"},
			{name: "Accept-Encoding gzip with If-None-Match", path: bigPage, header: with("Accept-Encoding", "gzip", "If-None-Match", "*"), want: 304, format: "any", coding: "identity"},
			{name: "Accept-Encoding gzip on a problem", path: "/v2/catalog/lounges?limit=0", header: with("Accept-Encoding", "gzip"), want: 400},
			{name: "Accept-Encoding gzip on a 404", path: "/v2/nowhere", header: with("Accept-Encoding", "gzip"), want: 404},
			{name: "Accept-Encoding gzip on a pass (PNG)", mtls: true, path: bookingPath + "/" + bookingID + "/pass", header: with("Accept-Encoding", "gzip", "Accept", "image/png"), want: anyStatus, coding: "identity"},
			{name: "pass with Accept garbage", mtls: true, path: bookingPath + "/" + bookingID + "/pass", header: with("Accept", ";;;"), want: 0},

			// Paging and query parameters.
			{name: "limit -1", path: "/v2/catalog/lounges?limit=-1", header: auth, want: 400},
			{name: "limit 0", path: "/v2/catalog/lounges?limit=0", header: auth, want: 400},
			{name: "limit 501", path: "/v2/catalog/lounges?limit=501", header: auth, want: 400},
			{name: "limit 2^64", path: "/v2/catalog/lounges?limit=18446744073709551616", header: auth, want: 400},
			{name: "limit 1e2", path: "/v2/catalog/lounges?limit=1e2", header: auth, want: 400},
			{name: "limit twice", path: "/v2/catalog/lounges?limit=1&limit=500", header: auth},
			{name: "offset 2^63", path: "/v2/catalog/lounges?offset=9223372036854775808", header: auth, want: 400},
			{name: "offset 10^6 (the maximum)", path: "/v2/catalog/lounges?offset=1000000", header: auth, want: 200},
			{name: "booking list offset 10^6", mtls: true, path: bookingPath + "?offset=1000000&limit=500", header: auth, want: 200},
			{name: "booking list offset 2^31", mtls: true, path: bookingPath + "?offset=2147483648", header: auth, want: 400},
			{name: "booking list status NUL", mtls: true, path: bookingPath + "?status=%00", header: auth, want: 400},
			{name: "eSIM list limit 2^63", path: "/v2/b2b/esims?limit=9223372036854775807", header: auth, want: 400},
			{name: "eSIM list status garbage", path: "/v2/b2b/esims?status=%27%20OR%201%3D1", header: auth, want: 400},
			{name: "eSIM history limit 2^63", path: "/v2/b2b/esims/8999901000000000013/history?limit=9223372036854775807", header: auth, want: 400},
			{name: "eSIM history offset -5", path: "/v2/b2b/esims/8999901000000000013/history?offset=-5", header: auth, want: 400},
			{name: "eSIM history limit 1e2", path: "/v2/b2b/esims/8999901000000000013/history?limit=1e2", header: auth, want: 400},
			{name: "eSIM history of an unknown eSIM", path: "/v2/b2b/esims/8999901000000000013/history", header: auth, want: 404},
			{name: "eSIM history iccid with NUL", path: "/v2/b2b/esims/%00/history", header: auth, want: 404},
			{name: "eSIM history iccid of 4 KiB digits", path: "/v2/b2b/esims/" + strings.Repeat("9", 4<<10) + "/history", header: auth, want: 404},
			{name: "billing offset -5", path: "/v2/b2b/esim/billing?offset=-5", header: auth, want: 400},
			{name: "account billing offset -5", path: "/v2/b2b/billing?offset=-5", header: auth, want: 400},
			{name: "account billing limit 2^63", path: "/v2/b2b/billing?limit=9223372036854775807", header: auth, want: 400},
			{name: "statement month 13", path: "/v2/b2b/billing/statements/2025-13", header: auth, want: 400},
			{name: "statement month without a zero", path: "/v2/b2b/billing/statements/2025-3", header: auth, want: 400},
			{name: "statement month with NUL", path: "/v2/b2b/billing/statements/2025-0%00", header: auth, want: 400},
			{name: "statement month of 8 KiB", path: "/v2/b2b/billing/statements/" + strings.Repeat("9", 8<<10), header: auth, want: 400},
			{name: "statement month SQL", path: "/v2/b2b/billing/statements/%27%20OR%201%3D1", header: auth, want: 400},
			{name: "statement as JSON only", path: "/v2/b2b/billing/statements/2025-03", header: with("Accept", "application/json"), want: 406},
			{name: "statement with text/csv;q=0", path: "/v2/b2b/billing/statements/2025-03", header: with("Accept", "text/csv;q=0, application/json"), want: 406},
			{name: "statement with text/csv;q=0 before */*", path: "/v2/b2b/billing/statements/2025-03", header: with("Accept", "text/csv;q=0, */*"), want: 406},
			{name: "statement with text/*;q=0 after */*", path: "/v2/b2b/billing/statements/2025-03", header: with("Accept", "*/*, text/*;q=0"), want: 406},
			{name: "statement with Accept garbage", path: "/v2/b2b/billing/statements/2025-03", header: with("Accept", ";;;"), want: 0},
			{name: "statement of year 0", path: "/v2/b2b/billing/statements/0000-01", header: with("Accept", "text/csv"), want: 200},
			{name: "billing settings not JSON", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: "<xml/>", want: 400},
			{name: "billing settings as a form", method: "PATCH", path: "/v2/b2b/billing/settings", header: with("Content-Type", "application/x-www-form-urlencoded"), body: "a=1", want: 415},
			{name: "billing settings without the list", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: `{}`, want: 422},
			{name: "billing settings threshold 2^63", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: `{"low_balance_thresholds":[{"amount":9223372036854775808,"currency":"USD"}]}`, want: 400},
			{name: "billing settings threshold negative", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: `{"low_balance_thresholds":[{"amount":-1,"currency":"USD"}]}`, want: 422},
			{name: "billing settings currency NUL", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: `{"low_balance_thresholds":[{"amount":1,"currency":"US\u0000"}]}`, want: 422},
			{name: "billing settings currency twice", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: `{"low_balance_thresholds":[{"amount":1,"currency":"USD"},{"amount":2,"currency":"USD"}]}`, want: 422},
			{name: "billing settings 10k thresholds", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: `{"low_balance_thresholds":[` + strings.Repeat(`{"amount":1,"currency":"USD"},`, 9999) + `{"amount":1,"currency":"USD"}]}`, want: 422},
			{name: "billing settings unknown field", method: "PATCH", path: "/v2/b2b/billing/settings", header: jsonH(), body: `{"low_balance_thresholds":[],"x":1}`, want: 400},
			{name: "eSIM settings not JSON", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: "<xml/>", want: 400},
			{name: "eSIM settings as a form", method: "PATCH", path: "/v2/b2b/esim/settings", header: with("Content-Type", "application/x-www-form-urlencoded"), body: "a=1", want: 415},
			{name: "eSIM settings without the list", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{}`, want: 422},
			{name: "eSIM settings list null", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":null}`, want: 422},
			{name: "eSIM settings threshold 0 and 101", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":[0,50,101]}`, want: 422},
			{name: "eSIM settings threshold 2^63", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":[9223372036854775808]}`, want: 400},
			{name: "eSIM settings threshold as text", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":["80"]}`, want: 400},
			{name: "eSIM settings threshold 50.5", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":[50.5]}`, want: 400},
			{name: "eSIM settings thresholds descending", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":[80,50]}`, want: 422},
			{name: "eSIM settings threshold twice", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":[80,80]}`, want: 422},
			{name: "eSIM settings 10k thresholds", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":[` + strings.Repeat(`50,`, 9999) + `50]}`, want: 422},
			{name: "eSIM settings unknown field", method: "PATCH", path: "/v2/b2b/esim/settings", header: jsonH(), body: `{"usage_thresholds":[],"x":1}`, want: 400},
			{name: "sandbox profile not JSON", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: jsonH(), body: "<xml/>", want: 400},
			{name: "sandbox profile as text/plain", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: with("Content-Type", "text/plain"), body: `{"state":"Installed"}`, want: 415},
			{name: "sandbox profile without state", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: jsonH(), body: `{}`, want: 422},
			{name: "sandbox profile unknown state", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: jsonH(), body: `{"state":"Exploded"}`, want: 422},
			{name: "sandbox profile state in lower case", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: jsonH(), body: `{"state":"installed"}`, want: 422},
			{name: "sandbox profile state with NUL", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: jsonH(), body: `{"state":"Installed\u0000"}`, want: 422},
			{name: "sandbox profile state a number", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: jsonH(), body: `{"state":3}`, want: 400},
			{name: "sandbox profile unknown field", method: "POST", path: "/v2/sandbox/esims/8999901000000000013/profile", header: jsonH(), body: `{"state":"Installed","x":1}`, want: 400},
			{name: "name of 65 characters", path: "/v2/catalog/lounges?name=" + strings.Repeat("a", 65), header: auth, want: 400},
			{name: "name with NUL", path: "/v2/catalog/lounges?name=%00", header: auth},
			{name: "name with invalid UTF-8", path: "/v2/catalog/lounges?name=%FF%FE", header: auth},
			{name: "iata with SQL", path: "/v2/catalog/lounges?iata=%27%3B--", header: auth, want: 400},
			{name: "query with a bad escape", path: "/v2/catalog/lounges?name=%zz", header: auth, want: 400},
			{name: "booking list with a bad escape", mtls: true, path: bookingPath + "?status=%zz", header: auth, want: 400},
			{name: "audit list with a semicolon", path: "/api/v1/admin/audit-events?limit=1;actor=x", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},
			{name: "eSIM packages with a bad escape", path: "/v2/catalog/esim/packages?country=%G1", header: auth, want: 400},
			{name: "esim packages country NUL", path: "/v2/catalog/esim/packages?country=U%00", header: auth, want: 400},
			{name: "esim packages region SQL", path: "/v2/catalog/esim/packages?region=%27%20OR%201%3D1", header: auth, want: 400},
			{name: "esim packages region NUL", path: "/v2/catalog/esim/packages?region=asia%00", header: auth, want: 400},
			{name: "esim packages region of 8 KiB", path: "/v2/catalog/esim/packages?region=" + strings.Repeat("a", 8<<10), header: auth, want: 400},
			{name: "esim packages unlimited yes", path: "/v2/catalog/esim/packages?unlimited=yes", header: auth, want: 400},
			{name: "esim packages top_up twice", path: "/v2/catalog/esim/packages?top_up=true&top_up=false", header: auth, want: 400},
			{name: "esim packages every filter bad", path: "/v2/catalog/esim/packages?region=%00&unlimited=%00&top_up=%00&country=%00", header: auth, want: 400},
			{name: "deliveries limit 2^63", path: "/api/v1/b2b/webhooks/" + skygate.NewID() + "/deliveries?limit=9223372036854775807", header: auth},
			{name: "admin audit limit 2^63", path: "/api/v1/admin/audit-events?limit=9223372036854775807", header: map[string]string{"Authorization": "Bearer " + admin}, want: 400},

			// The eSIM install page: every token it did not mint is the same HTML 404.
			{name: "install token of 8 KiB", path: skygate.InstallPagePath + strings.Repeat("A", 8<<10), want: 404, format: "html"},
			{name: "install token with NUL", path: skygate.InstallPagePath + "a%00b", want: 404, format: "html"},
			{name: "install token unicode", path: skygate.InstallPagePath + "%E2%80%AE%F0%9F%98%80", want: 404, format: "html"},
			{name: "install token invalid UTF-8", path: skygate.InstallPagePath + "%FF%FE", want: 404, format: "html"},
			{name: "install token SQL", path: skygate.InstallPagePath + "1%27%20OR%20%271%27%3D%271", want: 404, format: "html"},
			{name: "install token script", path: skygate.InstallPagePath + "%3Cscript%3Ealert(1)%3C%2Fscript%3E", want: 404, format: "html"},
			{name: "install token base64 of 1 KiB", path: skygate.InstallPagePath + strings.Repeat("QUFB", 256), want: 404, format: "html"},
			{name: "install page Accept-Language and User-Agent garbage", path: skygate.InstallPagePath + "x",
				header: map[string]string{"Accept-Language": strings.Repeat(";;;q=abc,", 900), "User-Agent": strings.Repeat("iPhone Android ", 500)}, want: 404, format: "html"},
			{name: "install page POST", method: "POST", path: skygate.InstallPagePath + "x", want: 405},

			// Paths.
			{name: "booking id with NUL", mtls: true, path: bookingPath + "/%00", header: auth, want: 404},
			{name: "booking id of 8 KiB", mtls: true, path: bookingPath + "/" + strings.Repeat("a", 8<<10), header: auth, want: 404},
			{name: "booking id not a UUID", mtls: true, path: bookingPath + "/' OR '1'='1", header: auth, want: 404},
			{name: "booking id upper-case UUID", mtls: true, path: bookingPath + "/" + strings.ToUpper(bookingID), header: auth},
			{name: "booking path traversal", mtls: true, path: bookingPath + "/..%2f..%2fapi%2fv1%2fadmin%2faccounts", header: auth, want: 404},
			{name: "iccid with letters", path: "/v2/b2b/esims/89999ABCDEF00000001", header: auth, want: 404},
			{name: "iccid of 4 KiB digits", path: "/v2/b2b/esims/" + strings.Repeat("9", 4<<10), header: auth, want: 404},
			{name: "instructions of an iccid with NUL", path: "/v2/b2b/esims/8999%00/instructions", header: auth, want: 404},
			{name: "instructions of an iccid of 4 KiB digits", path: "/v2/b2b/esims/" + strings.Repeat("9", 4<<10) + "/instructions", header: auth, want: 404},
			{name: "instructions of an iccid SQL", path: "/v2/b2b/esims/1%27%20OR%20%271%27%3D%271/instructions", header: auth, want: 404},
			{name: "instructions with Accept-Language garbage", path: "/v2/b2b/esims/8999901000000000013/instructions", header: with("Accept-Language", ";;;q=abc,,*;q=-1"), want: 404},
			{name: "instructions POST", method: "POST", path: "/v2/b2b/esims/8999901000000000013/instructions", header: auth, want: 405},
			{name: "order id with NUL", path: "/v2/b2b/esim/orders/%00", header: auth, want: 404},
			{name: "package id SQL", path: "/v2/catalog/esim/packages/1%27%20OR%20%271%27%3D%271", header: auth, want: 404},
			{name: "webhook id unicode", path: "/api/v1/b2b/webhooks/%E2%80%AE", header: auth, want: 404},
			{name: "lounge id with NUL", path: "/v2/catalog/lounges/%00", header: auth, want: 404},
			{name: "dot segments (ServeMux cleans the path)", path: "/v2/catalog/../../etc/passwd", header: auth, want: 307, format: "any"},
			{name: "method TRACE", method: "TRACE", path: "/v2/catalog/lounges", header: auth, want: 405},
			{name: "method FOO", method: "FOO", path: "/v2/catalog/lounges", header: auth, want: 405},
			{name: "method DELETE on the catalog", method: "DELETE", path: "/v2/catalog/lounges", header: auth, want: 405},

			// Token endpoint (RFC 6749 error bodies).
			{name: "token body over the limit", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
				body: "grant_type=client_credentials&x=" + strings.Repeat("a", 2<<20), format: "oauth"},
			{name: "token form with NUL", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
				body: "grant_type=client_credentials&client_id=" + url.QueryEscape(c.ClientID+"\x00") + "&client_secret=" + url.QueryEscape(c.ClientSecret), want: 401, format: "oauth"},
			{name: "tls_client_auth with NUL in client_id", method: "POST", mtls: true, path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
				body: "grant_type=client_credentials&client_id=" + url.QueryEscape(c.ClientID+"\x00"), want: 401, format: "oauth"},
			{name: "tls_client_auth with a client_id of 8 KiB", method: "POST", mtls: true, path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
				body: "grant_type=client_credentials&client_id=" + strings.Repeat("a", 8<<10), want: 401, format: "oauth"},
			{name: "tls_client_auth of an unbound application", method: "POST", mtls: true, path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/json"},
				body: `{"grant_type":"client_credentials","client_id":"` + c.ClientID + `"}`, want: 401, format: "oauth"},
			{name: "token grant_type twice", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": basic(c)},
				body: "grant_type=client_credentials&grant_type=authorization_code", want: 400, format: "oauth"},
			{name: "token JSON malformed", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/json", "Authorization": basic(c)}, body: `{"grant_type":`, want: 400, format: "oauth"},
			{name: "token JSON grant_type number", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/json", "Authorization": basic(c)}, body: `{"grant_type":1}`, want: 400, format: "oauth"},
			{name: "token Basic not base64", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic %%%"}, body: "grant_type=client_credentials", format: "oauth"},
			{name: "token Basic without colon", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("nocolon"))}, body: "grant_type=client_credentials", format: "oauth"},
			{name: "token secret of 64 KiB", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
				body: "grant_type=client_credentials&client_id=" + url.QueryEscape(c.ClientID) + "&client_secret=" + strings.Repeat("s", 64<<10), format: "oauth"},
			{name: "token 10k scopes", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": basic(c)},
				body: "grant_type=client_credentials&scope=" + strings.Repeat("esim:read+", 10_000), want: 0, format: "oauth"},
			{name: "token scope with NUL", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": basic(c)},
				body: "grant_type=client_credentials&scope=esim%3Aread%00", want: 400, format: "oauth"},
			{name: "token authorization_code with a forged code", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
				body: "grant_type=authorization_code&code=" + strings.Repeat("A", 43) + "&code_verifier=" + strings.Repeat("v", 43), want: 400, format: "oauth"},
			{name: "token authorization_code code of 1 MiB", method: "POST", path: "/oauth/v2/token", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
				body: "grant_type=authorization_code&code=" + strings.Repeat("A", 1<<19) + "&code_verifier=" + strings.Repeat("v", 43), format: "oauth"},
		}
		certCases, certUnbound := s.certificateHostile(t, c.AccountID, admin)
		cases = append(cases, certCases...)
		cases = append(cases, s.privateKeyJWTHostile(t, c, admin)...)
		audCases, audiencesKept := s.audiencesPatchHostile(t, c.AccountID, admin)
		cases = append(cases, audCases...)
		cases = append(cases, oauthHostileCases(c)...)
		subsCases, filterKept := s.webhookSubsHostile(t, tok)
		cases = append(cases, subsCases...)
		s.runHostile(t, cases)
		filterKept()
		certUnbound()
		audiencesKept()
		if resp, body := s.get("/v2/catalog/lounges?limit=1", tok, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("the token after hostile revocations: %d %.300s", resp.StatusCode, body)
		}

		// A request with two Idempotency-Key headers used up neither key.
		for _, key := range []string{"a", "b"} {
			if resp, body := s.book(s.mtlsClient, tok, key, valid); resp.StatusCode != 202 || resp.Header.Get("Idempotency-Status") != "created" {
				t.Errorf("booking with key %s after the two-key request: %d %s %s", key, resp.StatusCode, resp.Header.Get("Idempotency-Status"), body)
			}
		}

		// The catalogue changed nothing it should not have: the booking and the lists.
		if resp, body := s.get("/v2/catalog/lounges?limit=5", tok, nil); resp.StatusCode != 200 || string(body) != string(lounges) {
			t.Errorf("catalog after the catalogue: %d", resp.StatusCode)
		}
		_, list := s.bookingCall(http.MethodGet, bookingPath+"?limit=500", tok)
		var page struct {
			Data []struct {
				PartnerReference string `json:"partner_reference"`
				Passengers       []struct {
					FirstName string `json:"first_name"`
				} `json:"passengers"`
			} `json:"data"`
		}
		if err := json.Unmarshal(list, &page); err != nil {
			t.Fatal(err)
		}
		for _, b := range page.Data {
			if strings.ContainsRune(b.PartnerReference, 0) || len(b.Passengers) > 0 && strings.ContainsRune(b.Passengers[0].FirstName, 0) {
				t.Errorf("a booking was stored with a NUL byte: %+v", b)
			}
		}
		s.checkServerLog(t)
	})
}

// TestHostileRawHTTP sends requests that no well-behaved client library would send:
// the server must answer each with a 4xx (net/http's own plain-text 400/431 is fine)
// and close or keep the connection without harm.
func TestHostileRawHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t, hostileEnv(t, engines[0], nil))
	addr := strings.TrimPrefix(s.base, "http://")
	for _, c := range []struct {
		name, raw string
		also      int // a status allowed besides 4xx
	}{
		{"NUL in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 0},
		{"NUL in the request line", "GET /heal\x00thz HTTP/1.1\r\nHost: x\r\n\r\n", 0},
		{"space in the header name", "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: v\r\n\r\n", 0},
		{"obsolete line folding (RFC 9112 allows unfolding)", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", 200},
		{"no Host in HTTP/1.1", "GET /healthz HTTP/1.1\r\n\r\n", 0},
		{"request line of 100 KiB", "GET /" + strings.Repeat("a", 100<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 0},
		{"Content-Length and chunked", "POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 0},
		{"two Content-Lengths", "POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcd", 0},
		{"negative Content-Length", "POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 0},
		{"HTTP/0.9", "GET /healthz\r\n\r\n", 0},
		{"HTTP/3.0 over TCP", "GET /healthz HTTP/3.0\r\nHost: x\r\n\r\n", http.StatusHTTPVersionNotSupported},
		{"bad chunk size", "POST /oauth/v2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0},
	} {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.WriteString(conn, c.raw)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			// Closing the connection without an answer is acceptable for garbage.
			conn.Close()
			continue
		}
		resp.Body.Close()
		conn.Close()
		if (resp.StatusCode < 400 || resp.StatusCode > 499) && resp.StatusCode != c.also {
			t.Errorf("%s: %d, want a 4xx", c.name, resp.StatusCode)
		}
	}
	if resp, err := http.Get(s.base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz after raw garbage: %v", err)
	}
	s.checkServerLog(t)
}

// TestHostileLogin covers the employee login routes: redirect_uri variants, PKCE
// downgrade, replayed state and codes.
func TestHostileLogin(t *testing.T) {
	t.Parallel()
	s := startServer(t, hostileEnv(t, engines[0], nil))
	console := testPublicURL + "/admin/callback"
	challenge := b64(sha256Sum("verifier-" + strings.Repeat("v", 40)))
	login := func(kv ...string) string {
		q := url.Values{"redirect_uri": {console}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"spa"}}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "\x00delete" {
				q.Del(kv[i])
				continue
			}
			q.Set(kv[i], kv[i+1])
		}
		return oauth.AuthorizationPath + "?" + q.Encode()
	}
	var cases []hostileCase
	for _, uri := range []string{
		"", "https://evil.example/admin/callback", testPublicURL + "/admin/callback/", testPublicURL + "/admin/callback?x=1",
		testPublicURL + "/admin/callback#frag", strings.ToUpper(testPublicURL) + "/admin/callback", testPublicURL + "/admin/../admin/callback",
		"http://skygate.test@evil.example/admin/callback", "http://evil.example\\@skygate.test/admin/callback", testPublicURL + ":80/admin/callback",
		"//evil.example/admin/callback", "javascript:alert(1)", testPublicURL + "/admin/callback\x00", testPublicURL + "/admin/callback%2f..",
		"https://skygate.test/admin/callback", strings.Repeat("a", 8<<10),
	} {
		cases = append(cases, hostileCase{name: "redirect_uri " + fmt.Sprintf("%.60q", uri), path: login("redirect_uri", uri), want: 400})
	}
	cases = append(cases, hostileCase{name: "redirect_uri twice", path: login() + "&redirect_uri=" + url.QueryEscape("https://evil.example/cb"), want: 400})
	for name, kv := range map[string][]string{
		"PKCE method plain":           {"code_challenge_method", "plain"},
		"PKCE method missing":         {"code_challenge_method", "\x00delete"},
		"PKCE method s256":            {"code_challenge_method", "s256"},
		"PKCE challenge missing":      {"code_challenge", "\x00delete"},
		"PKCE challenge too short":    {"code_challenge", "abc"},
		"PKCE challenge too long":     {"code_challenge", strings.Repeat("a", 129)},
		"PKCE challenge bad chars":    {"code_challenge", strings.Repeat("a", 42) + "="},
		"state of 600 characters":     {"state", strings.Repeat("s", 600)},
		"state with a control char":   {"state", "a\nb"},
		"state with NUL":              {"state", "a\x00b"},
		"code_challenge_method twice": {"x", "y"},
	} {
		path := login(kv...)
		if name == "code_challenge_method twice" {
			path = login() + "&code_challenge_method=plain"
		}
		cases = append(cases, hostileCase{name: name, path: path, want: 302, format: "redirect"})
	}
	cb := oauth.AuthorizationCallbackPath
	cases = append(cases,
		hostileCase{name: "callback without state", path: cb + "?code=x", want: 400},
		hostileCase{name: "callback with a forged state", path: cb + "?code=x&state=" + b64([]byte(`{"r":"https://evil.example"}`)) + "." + b64(make([]byte, 32)), want: 400},
		hostileCase{name: "callback with a state of 30 KiB", path: cb + "?code=x&state=" + strings.Repeat("a", 30<<10), want: 400},
		hostileCase{name: "callback with NUL state", path: cb + "?code=x&state=%00", want: 400},
	)
	s.runHostile(t, cases)

	// A real login through the dev IdP, then replays: the callback URL a second time,
	// the one-time code a second time, and a PKCE downgrade at the token endpoint.
	browser := employeeBrowser(t, strings.TrimPrefix(s.base, "http://"))
	var callback string
	browser.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == oauth.AuthorizationCallbackPath && callback == "" {
			callback = req.URL.String()
		}
		if req.URL.Path == "/admin/callback" || len(via) > 10 {
			return http.ErrUseLastResponse
		}
		return nil
	}
	code, verifier := employeeSignIn(t, browser, testPublicURL, "carol")
	if callback == "" {
		t.Fatal("the login never passed through the callback")
	}
	resp, err := browser.Get(callback)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode >= 500 || loc == nil || loc.Query().Get("code") != "" {
		t.Errorf("replayed callback: %d Location %q: a second code was issued", resp.StatusCode, resp.Header.Get("Location"))
	}
	tokenCall := func(code, verifier string) (int, string) {
		resp, err := browser.PostForm(testPublicURL+oauth.TokenPath, url.Values{"grant_type": {"authorization_code"},
			"code": {code}, "code_verifier": {verifier}, "redirect_uri": {console}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error
	}
	if st, e := tokenCall(code, verifier); st != 200 {
		t.Fatalf("first use of the code: %d %s", st, e)
	}
	if st, e := tokenCall(code, verifier); st != 400 || e != "invalid_grant" {
		t.Errorf("code replay: %d %s", st, e)
	}
	// PKCE downgrade: the S256 challenge sent as if it were a plain verifier, an empty
	// verifier, and a verifier of another login.
	callback = ""
	code2, verifier2 := employeeSignIn(t, browser, testPublicURL, "carol")
	for name, v := range map[string]string{"challenge as verifier": b64(sha256Sum(verifier2)), "empty verifier": "", "other verifier": verifier} {
		if st, e := tokenCall(code2, v); st != 400 || (e != "invalid_grant" && e != "invalid_request") {
			t.Errorf("PKCE %s: %d %s", name, st, e)
		}
	}
	s.checkServerLog(t)
}

func sha256Sum(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// seedESIMCatalog gives the account one package, a pool of n profiles and funds for
// them, and returns the package id.
func (s *testServer) seedESIMCatalog(accountID string, n int) string {
	t := s.t
	t.Helper()
	pkg := skygate.NewID()
	acc := "/accounts/" + accountID + "/esim"
	pkgs := `[{"id":"` + pkg + `","name":{"en":"Test 1 GB","ru":"Тест 1 ГБ","uz":"Test 1 GB","kk":"Тест 1 ГБ"},"countries":["UZ"],"data_mb":1000,"validity_days":7,"price":{"amount":100,"currency":"USD"},"top_up":true,"active":true}]`
	if resp, body := s.adminCall(http.MethodPost, acc+"/packages", pkgs); resp.StatusCode != http.StatusOK {
		t.Fatalf("packages: %d %s", resp.StatusCode, body)
	}
	var csv strings.Builder
	csv.WriteString("iccid,smdp_address,matching_id\n")
	for range n {
		icc := storetest.NewICCID()
		csv.WriteString(icc + ",smdp.example.com,MATCH-" + icc[10:] + "\n")
	}
	resp, body := s.do(s.client, http.MethodPost, s.base+"/api/v1/admin"+acc+"/pool", strings.NewReader(csv.String()),
		map[string]string{"Authorization": "Bearer " + s.adminToken(), "Content-Type": "text/csv"})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("pool: %d %s", resp.StatusCode, body)
	}
	credit := fmt.Sprintf(`{"amount":{"amount":%d,"currency":"USD"},"description":"test funds"}`, 100*n)
	if resp, body := s.adminCall(http.MethodPost, acc+"/credits", credit); resp.StatusCode != http.StatusCreated {
		t.Fatalf("credit: %d %s", resp.StatusCode, body)
	}
	return pkg
}
