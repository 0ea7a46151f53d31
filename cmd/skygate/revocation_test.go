package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/httpapi"
	"github.com/skygate/skygate/internal/postgres/pgtest"
	"github.com/skygate/skygate/internal/storetest"
)

// Revocation that takes effect now: deleting an application, or rotating its secret
// with {"revoke_tokens": true}, makes its tokens fail on every route and every replica
// within ApplicationCacheTTL (one second), as a suspension does; a rotation without it
// leaves them working; a token of the new secret works at once.

// revocationRoute is one route a revoked token is tried on.
type revocationRoute struct {
	name string
	call func(s *testServer, tok string) (*http.Response, []byte)
}

// revocationRoutes are a catalog route, an eSIM order (paid: each success takes a
// profile and money), a webhook route and a booking route over mutual TLS.
func revocationRoutes(pkg string, orders *atomic.Int64) []revocationRoute {
	var keys atomic.Int64
	return []revocationRoute{
		{"catalog", func(s *testServer, tok string) (*http.Response, []byte) {
			return s.get("/v2/catalog/lounges?limit=1", tok, nil)
		}},
		{"eSIM order", func(s *testServer, tok string) (*http.Response, []byte) {
			resp, body := s.partnerCall(http.MethodPost, "/v2/b2b/esim/orders", tok, `{"package_id":"`+pkg+`","quantity":1}`,
				map[string]string{"Idempotency-Key": fmt.Sprintf("revocation-%d", keys.Add(1))})
			if resp.StatusCode == http.StatusCreated {
				orders.Add(1)
				resp.StatusCode = http.StatusOK // one success code for all routes
			}
			return resp, body
		}},
		{"webhooks", func(s *testServer, tok string) (*http.Response, []byte) {
			return s.partnerCall(http.MethodGet, "/api/v1/b2b/webhooks", tok, "", nil)
		}},
		{"booking over mTLS", func(s *testServer, tok string) (*http.Response, []byte) {
			return s.bookingCall(http.MethodGet, bookingPath+"?limit=1", tok)
		}},
	}
}

// everywhere checks that tok gets want on every route of every replica, waiting up
// to three times ApplicationCacheTTL for each (the documented bound, with room for a
// busy machine, as TestAdminChangesReachOtherReplicas waits). A refusal must be 401
// with an invalid_token challenge.
func everywhere(t *testing.T, what string, replicas []*testServer, routes []revocationRoute, tok string, want int, wait bool) {
	t.Helper()
	for i, s := range replicas {
		for _, rt := range routes {
			deadline := time.Now().Add(3 * httpapi.ApplicationCacheTTL)
			for {
				resp, body := rt.call(s, tok)
				if resp.StatusCode == want {
					if want == http.StatusUnauthorized && !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
						t.Errorf("%s, replica %d, %s: WWW-Authenticate %q", what, i, rt.name, resp.Header.Get("WWW-Authenticate"))
					}
					break
				}
				if !wait || time.Now().After(deadline) {
					t.Fatalf("%s, replica %d, %s: %d %.300s, want %d", what, i, rt.name, resp.StatusCode, body, want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
}

// checkRevocation runs the scenario over replicas of one database; replicas[0] is
// asked for the first token, and the changes go through the others.
func checkRevocation(t *testing.T, replicas []*testServer) {
	pick := func(i int) *testServer { return replicas[i%len(replicas)] }
	r0 := replicas[0]
	c := r0.mustBootstrap("revocation", skygate.B2BScopes, "--sandbox")
	var orders atomic.Int64
	routes := revocationRoutes(r0.seedESIMCatalog(c.AccountID, 60), &orders)
	_, body := r0.adminCall(http.MethodGet, "/accounts/"+c.AccountID+"/applications", "")
	appID := mustJSON(t, body)["data"].([]any)[0].(map[string]any)["id"].(string)
	rotate := func(on *testServer, body string) credentials {
		t.Helper()
		resp, out := on.adminCall(http.MethodPost, "/applications/"+appID+"/rotate-secret", body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("rotate %s: %d %s", body, resp.StatusCode, out)
		}
		rotated := c
		rotated.ClientSecret = mustJSON(t, out)["client_secret"].(string)
		return rotated
	}

	// Every replica caches the application while serving the first token.
	first := r0.mustToken(c, "")
	everywhere(t, "a fresh token", replicas, routes, first, http.StatusOK, false)

	// A rotation without revoke_tokens (no body, then false) leaves it working, also
	// once every replica has read the application again.
	rotate(pick(1), "")
	c = rotate(pick(2), `{"revoke_tokens":false}`)
	time.Sleep(httpapi.ApplicationCacheTTL + 100*time.Millisecond)
	everywhere(t, "a token of before a rotation without revoke_tokens", replicas, routes, first, http.StatusOK, false)
	second := pick(1).mustToken(c, "")

	// With revoke_tokens: a token of the new secret works at once everywhere, also on
	// the replicas that still cache the application; the old ones stop everywhere.
	c = rotate(pick(1), `{"revoke_tokens":true}`)
	fresh := pick(2).mustToken(c, "")
	everywhere(t, "a token of the new secret, at once", replicas, routes, fresh, http.StatusOK, false)
	for _, old := range []string{first, second} {
		everywhere(t, "a token of before the revocation", replicas, routes, old, http.StatusUnauthorized, true)
	}
	everywhere(t, "a token of the new secret after the revocation has spread", replicas, routes, fresh, http.StatusOK, false)
	if resp, body := pick(0).tokenCall(c, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("the new secret on the first replica: %d %s", resp.StatusCode, body)
	}

	// Deleting the application: its tokens stop everywhere, and no order was placed
	// with a refused token.
	if resp, body := pick(2).adminCall(http.MethodDelete, "/applications/"+appID, ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d %s", resp.StatusCode, body)
	}
	everywhere(t, "a token of a deleted application", replicas, routes, fresh, http.StatusUnauthorized, true)
	_, total, err := r0.openStore().ListESIMOrders(t.Context(), c.AccountID, skygate.Page{Limit: 1})
	storetest.MustNoError(t, err, "ListESIMOrders")
	if int64(total) != orders.Load() {
		t.Errorf("%d orders stored, %d acknowledged: a refused token placed an order", total, orders.Load())
	}
}

// TestRevocationThreeReplicas: three replicas on one PostgreSQL, the changes made
// through one and checked on all.
func TestRevocationThreeReplicas(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_DATABASE_URL": pgtest.MustDSN(t)})
	// One data directory: the replicas share the development PKI (one client CA).
	var replicas []*testServer
	for range 3 {
		replicas = append(replicas, startServer(t, env))
	}
	checkRevocation(t, replicas)
}

// TestRevocation: the same on one replica, on both engines.
func TestRevocation(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		checkRevocation(t, []*testServer{startServer(t, e.env(t, nil))})
	})
}

// TestRevocationBurst is the review's reproduction: 35 revoking rotations in a row,
// each followed by a token of its new secret. Under the time cut-off each rotation made
// while the cut-off lay ahead moved it a second further and new tokens carried it as
// iat, so after about 30 the token endpoint gave out tokens that every route refused
// as issued in the future. Now the last secret's token works at once and every
// earlier secret's token is refused.
func TestRevocationBurst(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		s := startServer(t, e.env(t, map[string]string{
			"SKYGATE_TOKEN_RATE_BURST": "100", "SKYGATE_TOKEN_SOURCE_RATE_BURST": "100",
		}))
		c := s.mustBootstrap("revocation-burst", catalogScopes)
		_, body := s.adminCall(http.MethodGet, "/accounts/"+c.AccountID+"/applications", "")
		appID := mustJSON(t, body)["data"].([]any)[0].(map[string]any)["id"].(string)
		earlier := []string{s.mustToken(c, "")}
		const rotations = 35
		for i := range rotations {
			resp, out := s.adminCall(http.MethodPost, "/applications/"+appID+"/rotate-secret", `{"revoke_tokens":true}`)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("rotation %d: %d %s", i+1, resp.StatusCode, out)
			}
			c.ClientSecret = mustJSON(t, out)["client_secret"].(string)
			if i < rotations-1 {
				earlier = append(earlier, s.mustToken(c, ""))
			}
		}
		last := s.mustToken(c, "")
		if resp, body := s.get("/v2/catalog/lounges?limit=1", last, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("the last secret's token: %d %.300s", resp.StatusCode, body)
		}
		for i, tok := range earlier {
			resp, body := s.get("/v2/catalog/lounges?limit=1", tok, nil)
			if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Errorf("the token of secret %d of %d: %d %.300s", i+1, rotations+1, resp.StatusCode, body)
			}
		}
	})
}
