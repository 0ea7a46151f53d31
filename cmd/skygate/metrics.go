package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/webhook"
)

// webhookCollectors exposes the dispatcher's counters on /metrics.
func webhookCollectors(d *webhook.Dispatcher) []prometheus.Collector {
	counter := func(name, help string, get func(webhook.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "skygate_webhook_" + name, Help: help},
			func() float64 { return float64(get(d.Stats())) })
	}
	return []prometheus.Collector{
		counter("attempts_total", "Webhook delivery attempts started.", func(s webhook.Stats) uint64 { return s.Claimed }),
		counter("delivered_total", "Webhook deliveries answered 2xx.", func(s webhook.Stats) uint64 { return s.Succeeded }),
		counter("retried_total", "Failed webhook attempts with another one scheduled.", func(s webhook.Stats) uint64 { return s.Retried }),
		counter("failed_total", "Webhook deliveries that failed for good.", func(s webhook.Stats) uint64 { return s.Failed }),
		counter("disabled_total", "Subscriptions disabled by a 410 answer.", func(s webhook.Stats) uint64 { return s.Disabled }),
		counter("store_errors_total", "Dispatcher claims or outcomes that could not be written.", func(s webhook.Stats) uint64 { return s.Errors }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "skygate_webhook_in_flight", Help: "Webhook requests in flight."},
			func() float64 { return float64(d.Stats().InFlight) }),
	}
}

// poolCollectors export each database pool's statistics as database/sql keeps them
// (go_sql_*, labelled db_name): open, in-use and idle connections, waits for a free
// one, and the connections each limit closed. go_sql_max_idle_closed_total rising
// under a steady load means the pool reconnects as its load varies.
func poolCollectors(db database) []prometheus.Collector {
	var cs []prometheus.Collector
	for name, pool := range db.Pools() {
		cs = append(cs, collectors.NewDBStatsCollector(pool, name))
	}
	return cs
}

// backlogTimeout bounds the store query of a scrape: /metrics must answer while the
// database is slow or down, well within Prometheus's default scrape timeout (10 s).
const backlogTimeout = time.Second

// webhookBacklog is the store method behind the backlog gauges.
type webhookBacklog interface {
	WebhookBacklog(ctx context.Context, now time.Time) (skygate.WebhookBacklog, error)
}

// backlogCollector exports the webhook backlog of every account, read from the
// database on each scrape (one query off the claim's partial index, bounded by
// backlogTimeout). A scrape that cannot read it leaves both series out and logs why:
// a missing series is an alert's to notice, a made-up zero would hide the outage.
// Every replica reads the same database: aggregate with max, not sum.
type backlogCollector struct {
	store        webhookBacklog
	now          func() time.Time
	log          *slog.Logger
	pending, age *prometheus.Desc
}

func newBacklogCollector(store webhookBacklog, now func() time.Time, log *slog.Logger) *backlogCollector {
	const same = " Read from the database: every replica reports the same figure, so aggregate with max, not sum."
	return &backlogCollector{store: store, now: now, log: log,
		pending: prometheus.NewDesc("skygate_webhook_backlog",
			"Pending webhook deliveries of active subscriptions: due, waiting for a retry, or in flight."+same, nil, nil),
		age: prometheus.NewDesc("skygate_webhook_oldest_pending_age_seconds",
			"Seconds since the longest-waiting due webhook delivery became due; 0 when none is due."+same, nil, nil),
	}
}

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.age
}

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), backlogTimeout)
	defer cancel()
	now := c.now()
	b, err := c.store.WebhookBacklog(ctx, now)
	if err != nil {
		c.log.Warn("metrics: cannot read the webhook backlog", "err", err)
		return
	}
	age := 0.0
	if !b.OldestDue.IsZero() {
		age = max(0, now.Sub(b.OldestDue).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(b.Pending))
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age)
}
