package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/ratelimit"
)

// RateLimits configures request limits. The zero value limits nothing.
type RateLimits struct {
	Limiter ratelimit.Limiter
	// Account applies per account (B2B tokens) or per employee (sub) on every
	// authenticated route.
	Account ratelimit.Rate
	// TokenSource applies per source address (Server.source; an IPv6 address as its
	// /64) at the token endpoint, to the work done before a client has authenticated:
	// every token request is counted against its source before anything is read.
	TokenSource ratelimit.Rate
	// Token applies per client at the token endpoint, keyed by the client_id of the
	// application that a request authenticated as: such a request is given back to its
	// source's allowance and counted here instead (see Server.TokenHooks).
	Token ratelimit.Rate
	// WebhookTest applies per webhook subscription to POST …/{webhookID}/test.
	WebhookTest ratelimit.Rate
	// WebhookRecover applies per webhook subscription to POST …/{webhookID}/recover.
	WebhookRecover ratelimit.Rate
	// InstallPage applies per source address (as TokenSource) to the hosted install
	// page, GET /esim/install/{token}, which needs no login: it bounds the work one
	// address makes the page do and throttles token guessing.
	InstallPage ratelimit.Rate
}

// limiter names one of the limits of RateLimits, for the label of the rejections
// they count on /metrics.
type limiter int

const (
	limitAccount        limiter = iota // RateLimits.Account
	limitTokenSource                   // RateLimits.TokenSource
	limitToken                         // RateLimits.Token
	limitWebhookTest                   // RateLimits.WebhookTest
	limitWebhookRecover                // RateLimits.WebhookRecover
	limitLongPolls                     // eventfeed.DefaultPerAccount long-polls of an account
	limitInstallPage                   // RateLimits.InstallPage
	limiterCount
)

// String is the limit label of l.
func (l limiter) String() string {
	return [...]string{"account", "token_source", "token_client", "webhook_test", "webhook_recover", "long_polls", "install_page"}[l]
}

// rateLimitError is the 429 of a refused request.
type rateLimitError struct {
	err   *skygate.Error
	retry time.Duration
}

func (e *rateLimitError) Error() string          { return e.err.Error() }
func (e *rateLimitError) Unwrap() error          { return e.err }
func (e *rateLimitError) RetryAfterSeconds() int { return ceilSeconds(e.retry) }

func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// limit counts the request against key under limit l and, on a refusal or once the caller has used
// half of its burst or more, sets the RateLimit headers (IETF
// draft-ietf-httpapi-ratelimit-headers): limit, remaining and seconds until reset. A
// caller well within its allowance gets none: the draft lets servers send them "only
// when a given quota is going to expire" (its performance considerations). A limiter
// that fails lets the request through: limits protect, they must not take the service
// down with Redis.
func (s *Server) limit(w http.ResponseWriter, r *http.Request, l limiter, key string, rate ratelimit.Rate) error {
	lim := s.deps.Limits.Limiter
	if lim == nil || !rate.Enabled() {
		return nil
	}
	d, err := lim.Allow(r.Context(), key, rate)
	if err != nil {
		s.log.WarnContext(r.Context(), "rate limiter failed; allowing", "err", err)
		return nil
	}
	if d.Allowed && d.Remaining*2 > d.Limit { // less than half of the burst used
		return nil
	}
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(d.Reset)))
	if d.Allowed {
		return nil
	}
	s.metrics.rejected(l)
	return &rateLimitError{
		err:   skygate.Errorf(skygate.CodeRateLimited, "too many requests; retry after %d s", ceilSeconds(d.RetryAfter)),
		retry: d.RetryAfter,
	}
}
