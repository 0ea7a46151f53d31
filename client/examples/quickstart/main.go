// Command quickstart books a fast-track with the Go client, end to end: it picks a
// departures fast-track of Tashkent from the catalog, books it for a week ahead over mutual TLS,
// waits until the booking is Issued, confirms it and prints the pass code.
//
// From the client directory of a Skygate checkout, against `skygate serve` with the
// demo client it prints:
//
//	SKYGATE_CLIENT_ID=skg_… SKYGATE_CLIENT_SECRET=sks_… SKYGATE_PKI_DIR=../data/pki \
//	  go run ./examples/quickstart
//
// SKYGATE_URL (default http://127.0.0.1:8080) and SKYGATE_MTLS_URL (default
// https://127.0.0.1:8443) are the plain and the mutual-TLS listeners; SKYGATE_PKI_DIR
// holds ca.pem, client.pem and client-key.pem.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/skygate/skygate/client"
	"github.com/skygate/skygate/client/api"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// issueTimeout bounds the wait for Issued: Skygate issues within seconds.
const issueTimeout = 2 * time.Minute

func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config(getenv)
	if err != nil {
		return err
	}
	c, err := client.New(cfg)
	if err != nil {
		return err
	}

	// 1. A departures fast-track of Tashkent from the catalog (the token is fetched
	// here).
	iata, name := "TAS", "departures"
	list, err := c.API.ListFastTracksWithResponse(ctx, &api.ListFastTracksParams{Iata: &iata, Name: &name})
	if err != nil {
		return err
	}
	if list.JSON200 == nil {
		return failed("list fast-tracks", list.StatusCode(), list.Body)
	}
	var ft *api.FastTrack
	for i := range list.JSON200.Data {
		if list.JSON200.Data[i].IsActive {
			ft = &list.JSON200.Data[i]
			break
		}
	}
	if ft == nil {
		return errors.New("no active departures fast-track at TAS in the catalog")
	}
	_, _ = fmt.Fprintf(stdout, "fast-track %s: %s\n", ft.Id, ft.Name)

	// 2. Book it, with an Idempotency-Key: a retry after a timeout with the same key
	// cannot book twice.
	date, err := serviceDate(time.Now(), ft.Policy.BookingBeforeHours)
	if err != nil {
		return err
	}
	created, err := c.MTLS.CreateFastTrackBookingWithResponse(ctx,
		&api.CreateFastTrackBookingParams{IdempotencyKey: rand.Text()}, bookingRequest(ft, date))
	if err != nil {
		return err
	}
	if created.JSON202 == nil {
		return failed("book", created.StatusCode(), created.Body)
	}
	id := created.JSON202.Id.String()
	_, _ = fmt.Fprintf(stdout, "booking %s for %s: %s\n", id, date.Format(time.DateOnly), created.JSON202.Status)

	// 3. Wait for Issued (a webhook receiver would get booking.status.changed instead).
	waitCtx, cancel := context.WithTimeout(ctx, issueTimeout)
	defer cancel()
	for {
		got, err := c.MTLS.GetFastTrackBookingWithResponse(waitCtx, id, nil)
		if err != nil {
			return fmt.Errorf("waiting for Issued: %w", err)
		}
		if got.JSON200 == nil {
			return failed("get booking", got.StatusCode(), got.Body)
		}
		if b := got.JSON200; b.Status == api.BookingStatusIssued {
			_, _ = fmt.Fprintf(stdout, "booking %s: %s, confirm before %s\n", id, b.Status, formatTime(b.ConfirmBefore))
			break
		} else if b.Status != api.BookingStatusPending {
			return fmt.Errorf("booking %s is %s, not Issued", id, b.Status)
		}
		select {
		case <-waitCtx.Done():
			return fmt.Errorf("booking %s not Issued after %v: %w", id, issueTimeout, waitCtx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}

	// 4. Confirm it before confirm_before.
	confirmed, err := c.MTLS.ConfirmFastTrackBookingWithResponse(ctx, id, nil)
	if err != nil {
		return err
	}
	if confirmed.JSON200 == nil {
		return failed("confirm", confirmed.StatusCode(), confirmed.Body)
	}
	_, _ = fmt.Fprintf(stdout, "booking %s: %s\n", id, confirmed.JSON200.Status)

	// 5. The pass the passenger shows at the airport.
	pass, err := c.MTLS.GetFastTrackPassWithResponse(ctx, id, nil)
	if err != nil {
		return err
	}
	if pass.JSON200 == nil {
		return failed("get pass", pass.StatusCode(), pass.Body)
	}
	_, _ = fmt.Fprintf(stdout, "pass %s, valid %s to %s\npass code: %s\n", pass.JSON200.Status,
		pass.JSON200.ValidFrom.Format(time.RFC3339), pass.JSON200.ValidUntil.Format(time.RFC3339), pass.JSON200.Code)
	return nil
}

// config reads the client's configuration from the environment, reporting every
// missing variable at once.
func config(getenv func(string) string) (client.Config, error) {
	cfg := client.Config{
		BaseURL:      getenv("SKYGATE_URL"),
		MTLSURL:      getenv("SKYGATE_MTLS_URL"),
		ClientID:     getenv("SKYGATE_CLIENT_ID"),
		ClientSecret: getenv("SKYGATE_CLIENT_SECRET"),
		PKIDir:       getenv("SKYGATE_PKI_DIR"),
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://127.0.0.1:8080"
	}
	if cfg.MTLSURL == "" {
		cfg.MTLSURL = "https://127.0.0.1:8443"
	}
	var missing []string
	for _, v := range [][2]string{
		{"SKYGATE_CLIENT_ID", cfg.ClientID}, {"SKYGATE_CLIENT_SECRET", cfg.ClientSecret}, {"SKYGATE_PKI_DIR", cfg.PKIDir},
	} {
		if v[1] == "" {
			missing = append(missing, v[0])
		}
	}
	if len(missing) > 0 {
		return cfg, fmt.Errorf("set %s (the demo client that skygate serve prints, and SKYGATE_DATA_DIR/pki)", strings.Join(missing, ", "))
	}
	return cfg, nil
}

// isoNotice is the ISO 8601 duration subset of booking_before_hours: days, hours and
// minutes ("PT24H", "P1D", "PT2H30M").
var isoNotice = regexp.MustCompile(`^P(?:(\d{1,4})D)?(?:T(?:(\d{1,5})H)?(?:(\d{1,5})M)?)?$`)

// serviceDate is a week from now, or later when the fast-track's notice
// (booking_before_hours) needs it: the service day starts at midnight in the hub's
// time zone, up to 14 hours ahead of UTC. A date beyond the 366 days a booking may be
// made ahead is an error.
func serviceDate(now time.Time, notice string) (time.Time, error) {
	m := isoNotice.FindStringSubmatch(notice)
	if m == nil || notice == "P" || strings.HasSuffix(notice, "T") {
		return time.Time{}, fmt.Errorf("booking_before_hours %q is not an ISO 8601 duration of days, hours and minutes", notice)
	}
	var d time.Duration
	for i, unit := range []time.Duration{24 * time.Hour, time.Hour, time.Minute} {
		n, _ := strconv.Atoi(m[i+1]) // "" reads as 0
		d += time.Duration(n) * unit
	}
	days := max(7, int(d/(24*time.Hour))+2)
	if days > 366 {
		return time.Time{}, fmt.Errorf("booking_before_hours %q leaves no service date within 366 days", notice)
	}
	return now.UTC().Truncate(24*time.Hour).AddDate(0, 0, days), nil
}

// bookingRequest books ft for one passenger, with every field ft requires, on a flight
// at noon local time: an account with a price list (the demo account has one) must name
// the flight's scheduled time, and the fast-track must be open then.
func bookingRequest(ft *api.FastTrack, date time.Time) api.BookingRequest {
	flight := "HY601"
	scheduled := date.Format(time.DateOnly) + "T12:00"
	reference := "quickstart"
	p := api.Passenger{FirstName: "Aziza", LastName: "Karimova"}
	for _, info := range ft.RequiredBookingInfo {
		switch info {
		case api.BookingInfoDateOfBirth:
			p.DateOfBirth = &openapi_types.Date{Time: time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC)}
		case api.BookingInfoEmail:
			email := openapi_types.Email("aziza@example.com")
			p.Email = &email
		case api.BookingInfoNationality:
			nationality := "UZ"
			p.Nationality = &nationality
		case api.BookingInfoPassportNumber:
			passport := "AB1234567"
			p.PassportNumber = &passport
		case api.BookingInfoPhone:
			phone := "+998901234567"
			p.Phone = &phone
		}
	}
	return api.BookingRequest{
		FastTrackId:      ft.Id,
		ServiceDate:      openapi_types.Date{Time: date},
		Flight:           api.Flight{Number: &flight, Direction: api.FlightDirectionDeparture, ScheduledAt: &scheduled},
		Passengers:       []api.Passenger{p},
		PartnerReference: &reference,
	}
}

// formatTime formats an optional time.
func formatTime(t *time.Time) string {
	if t == nil {
		return "(not set)"
	}
	return t.Format(time.RFC3339)
}

// failed describes an unexpected answer: Skygate's errors are problem+json bodies
// (type, title, detail, errors) that say what to fix.
func failed(what string, status int, body []byte) error {
	return fmt.Errorf("%s: HTTP %d: %s", what, status, strings.TrimSpace(string(body)))
}
