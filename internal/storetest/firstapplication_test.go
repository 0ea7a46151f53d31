package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// testApplicationCreateFirst: the first call inserts the application with its audit
// record; later ones return it and write nothing, their records included; an unknown
// account is CodeNotFound.
func testApplicationCreateFirst(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	first := newApplication(acc.ID)
	e := NewAuditEvent("alice", "application.create", acc.ID, first.ID)
	got, created, err := s.CreateFirstApplication(t.Context(), first, e)
	MustNoError(t, err, "CreateFirstApplication")
	if !created || got != first {
		t.Fatalf("first call: created %v, got %+v", created, got)
	}
	wantEqual(t, "stored application", MustApplication(t, s, acc.ID, first.ID), first)

	second := newApplication(acc.ID)
	second.CreatedAt = At(-time.Hour) // older than the first: still not inserted
	again := NewAuditEvent("alice", "application.create", acc.ID, second.ID)
	got, created, err = s.CreateFirstApplication(t.Context(), second, again)
	MustNoError(t, err, "CreateFirstApplication again")
	if created {
		t.Fatal("the second call created an application")
	}
	wantEqual(t, "second call's application", got, first)
	apps, total, err := s.ListApplications(t.Context(), acc.ID, skygate.Page{})
	MustNoError(t, err, "ListApplications")
	if total != 1 || apps[0].ID != first.ID {
		t.Fatalf("applications = %d %+v, want the first alone", total, apps)
	}
	records, _, err := s.ListAuditEvents(t.Context(), skygate.AuditFilter{AccountID: acc.ID}, skygate.Page{})
	MustNoError(t, err, "ListAuditEvents")
	if len(records) != 1 || records[0].ID != e.ID {
		t.Fatalf("records = %+v, want the first call's alone", records)
	}

	_, _, err = s.CreateFirstApplication(t.Context(), newApplication(NewID()), Audit("CreateFirstApplication"))
	WantCode(t, err, skygate.CodeNotFound)
}

// testApplicationCreateFirstConcurrently: of concurrent calls for one account exactly
// one inserts, and every call returns that application.
func testApplicationCreateFirstConcurrently(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	const n = 8
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]int{}
		created int
		start   = make(chan struct{})
	)
	for range n {
		wg.Go(func() {
			<-start
			app, ok, err := s.CreateFirstApplication(t.Context(), newApplication(acc.ID), Audit("CreateFirstApplication"))
			if err != nil {
				t.Errorf("CreateFirstApplication: %v", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ids[app.ID]++
			if ok {
				created++
			}
		})
	}
	close(start)
	wg.Wait()
	if created != 1 || len(ids) != 1 {
		t.Fatalf("%d calls created %d applications and returned %v, want one", n, created, ids)
	}
	if _, total, err := s.ListApplications(t.Context(), acc.ID, skygate.Page{}); err != nil || total != 1 {
		t.Fatalf("applications stored: %d, %v", total, err)
	}
}
