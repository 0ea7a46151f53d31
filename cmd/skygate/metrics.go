package main

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

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
