package main

import "testing"

func TestSumSamples(t *testing.T) {
	text := []byte(`# HELP go_sql_max_idle_closed_total The total number of connections closed due to SetMaxIdleConns.
# TYPE go_sql_max_idle_closed_total counter
go_sql_max_idle_closed_total{db_name="sqlite_read"} 3
go_sql_max_idle_closed_total{db_name="sqlite_write"} 4
go_sql_max_idle_closed_total_other 100
go_sql_max_idle_time_closed_total{db_name="sqlite_read"} 50
go_sql_max_idle_closed_total 2 1700000000000
`)
	if got := sumSamples(text, idleClosedMetric); got != 9 {
		t.Errorf("sumSamples = %v, want 9", got)
	}
	if got := sumSamples([]byte("go_goroutines 12\n"), idleClosedMetric); got != 0 {
		t.Errorf("sumSamples of an exposition without the metric = %v, want 0", got)
	}
	if idleClosedNote(0) != "" || idleClosedNote(15) == "" {
		t.Error("idleClosedNote: a note for none, or none for some")
	}
}
