package storetest

import (
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// testApplicationAudiences: an application's audiences come back, in order, from every
// read (by id, by client_id, in a list, from an update's RETURNING); nil is stored as
// an empty list; another account's application with audiences is not found.
func testApplicationAudiences(t *testing.T, s skygate.Store) {
	acc := MustCreateAccount(t, s)
	intruder := MustCreateAccount(t, s)
	audiences := []string{"https://billing.example.com/api", "urn:example:ledger", "https://b.example"}
	app := MustCreateApplication(t, s, acc.ID, func(app *skygate.Application) { app.Audiences = audiences })
	none := MustCreateApplication(t, s, acc.ID, func(app *skygate.Application) { app.Audiences = nil })

	got := MustApplication(t, s, acc.ID, app.ID)
	wantEqual(t, "Audiences", got.Audiences, audiences)
	wantEqual(t, "Application", got, app)
	byClient, _, err := s.ApplicationByClientID(t.Context(), app.ClientID)
	MustNoError(t, err, "ApplicationByClientID")
	wantEqual(t, "Audiences by client_id", byClient.Audiences, audiences)
	list, _, err := s.ListApplications(t.Context(), acc.ID, skygate.Page{Limit: 10})
	MustNoError(t, err, "ListApplications")
	for _, a := range list {
		if a.ID == app.ID {
			wantEqual(t, "Audiences in a list", a.Audiences, audiences)
		}
	}
	updated, err := s.SetApplicationSecret(t.Context(), acc.ID, app.ID, []byte("new hash"), time.Time{}, At(time.Hour), Audit("SetApplicationSecret"))
	MustNoError(t, err, "SetApplicationSecret")
	wantEqual(t, "Audiences after SetApplicationSecret", updated.Audiences, audiences)

	if got := MustApplication(t, s, acc.ID, none.ID); got.Audiences == nil || len(got.Audiences) != 0 {
		t.Errorf("Audiences = %#v, want an empty, non-nil list", got.Audiences)
	}

	_, err = s.Application(t.Context(), intruder.ID, app.ID)
	WantCode(t, err, skygate.CodeNotFound)
}
