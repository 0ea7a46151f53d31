package main

import (
	"net/http"
)

// scrape returns the operator listener's /metrics.
func (s *testServer) scrape() string {
	s.t.Helper()
	resp, body := s.do(s.opsClient, http.MethodGet, s.opsBase+"/metrics", nil, nil)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	return string(body)
}
