package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/eventfeed"
)

// Events API routes: the account's outbox, the same events its webhook deliveries
// carry, read through cursors with optional long-polls.

// eventPage is the answer of GET /api/v1/b2b/events. Each event encodes exactly as
// the body of its webhook deliveries (sqlstore.EventBody): encoding/json of
// skygate.Event.
type eventPage struct {
	Data       []*skygate.Event `json:"data"`
	NextCursor string           `json:"next_cursor"`
}

// waitSlack is how long past its wait a long-poll's response may still be written:
// the listeners' write timeout counts from the request's arrival, and a wait of up to
// eventfeed.MaxWait must still get its answer out.
const waitSlack = 15 * time.Second

// tooManyWaitersRetry is the Retry-After of a refused long-poll.
const tooManyWaitersRetry = time.Second

// listEvents answers a page of the account's feed: ?after (cursor), types (comma
// separated), limit, wait (a duration up to 30s). Bad parameters (a cursor of another
// account too) are 400, an expired cursor 410, a long-poll beyond the account's or
// the process's concurrent ones 429.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	q, err := parseEventQuery(r)
	if err != nil {
		return err
	}
	q.AccountID = accountIDOf(r.Context())
	if q.Wait > 0 {
		// Best effort: a writer that cannot move its deadline keeps the server's.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(q.Wait + waitSlack))
	}
	p, err := s.deps.Events.Read(r.Context(), q)
	for _, refusal := range []*skygate.Error{eventfeed.ErrTooManyWaiters, eventfeed.ErrServerBusy} {
		if errors.Is(err, refusal) {
			s.metrics.rejected(limitLongPolls)
			return &rateLimitError{err: refusal, retry: tooManyWaitersRetry}
		}
	}
	if err != nil {
		return err
	}
	if s.draining.Load() {
		// A long-poll that the drain ended early: the client's next request, which may
		// come at once, belongs on another replica.
		w.Header().Set("Connection", "close")
	}
	return writeJSON(w, http.StatusOK, eventPage{Data: p.Events, NextCursor: p.NextCursor})
}

// getEvent answers one event of the account; another account's is 404.
func (s *Server) getEvent(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.Events.Event(r.Context(), accountIDOf(r.Context()), r.PathValue("eventID")))
}

// parseEventQuery reads after, types, limit and wait; the service checks their
// ranges and the types. A parameter given twice, or a query string parseQuery
// refuses, is 400.
func parseEventQuery(r *http.Request) (eventfeed.Query, error) {
	var q eventfeed.Query
	values, err := parseQuery(r)
	if err != nil {
		return q, err
	}
	for name, v := range values {
		if len(v) > 1 {
			return q, skygate.BadParameter(name, "must be given once")
		}
	}
	q.After = values.Get("after")
	if t := values.Get("types"); t != "" {
		for typ := range strings.SplitSeq(t, ",") {
			if typ = strings.TrimSpace(typ); typ == "" {
				return q, skygate.BadParameter("types", "must be event types separated by commas, none empty")
			}
			q.Types = append(q.Types, typ)
		}
	}
	if v := values.Get("limit"); v != "" {
		if q.Limit, err = strconv.Atoi(v); err != nil || q.Limit < 1 {
			return q, skygate.BadParameter("limit", "must be an integer from 1 to "+strconv.Itoa(eventfeed.MaxLimit))
		}
	}
	if v := values.Get("wait"); v != "" {
		if q.Wait, err = time.ParseDuration(v); err != nil {
			return q, skygate.BadParameter("wait", "must be a duration such as 25s, from 0s to "+eventfeed.MaxWait.String())
		}
	}
	return q, nil
}
