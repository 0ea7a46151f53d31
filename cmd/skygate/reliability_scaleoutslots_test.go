package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/postgres/pgtest"
)

// Scale-out of slot capacity: three `serve` replicas on one PostgreSQL database sell
// one small slot to several accounts at once, some with a price list and some without,
// with parties of mixed sizes. The slot is never oversold, every refusal is SlotFull,
// the availability every replica answers is the capacity less the places that live
// bookings hold, and places given back by cancellations on another replica are sold
// again, exactly once each.

// slotParty is a create's passengers' types; its places are the non-infants.
type slotParty []skygate.PassengerType

func (p slotParty) places() int {
	n := 0
	for _, t := range p {
		if t.TakesPlace() {
			n++
		}
	}
	return n
}

// slotBookingBody is a create of a booking of the fast-track on date, its flight at
// hhmm local time, for the party.
func slotBookingBody(ft, date, hhmm, ref string, party slotParty) string {
	var pax []string
	for i, t := range party {
		pax = append(pax, fmt.Sprintf(`{"first_name":"Guest%d","last_name":"Slotova","type":%q}`, i, t))
	}
	return fmt.Sprintf(`{"fast_track_id":%q,"service_date":%q,"flight":{"number":"HY601","direction":"departure","scheduled_at":"%sT%s"},
		"passengers":[%s],"partner_reference":%q}`, ft, date, date, hhmm, strings.Join(pax, ","), ref)
}

// slotTenant is an account booking into the slot.
type slotTenant struct {
	name, accountID, token string
	priced                 bool
}

// heldBooking is a booking the test created, with the places it holds while live.
type heldBooking struct {
	id     string
	tenant *slotTenant
	places int
}

// slotRemaining reads the slot's capacity and remaining places from replica s.
func slotRemaining(t *testing.T, s *testServer, tok, ft, date string, hour int) (capacity, remaining int) {
	t.Helper()
	resp, body := s.get("/v2/catalog/fast-tracks/"+ft+"/availability?date="+date, tok, nil)
	var a skygate.Availability
	if err := json.Unmarshal(body, &a); resp.StatusCode != http.StatusOK || err != nil || len(a.Slots) <= hour {
		t.Fatalf("availability: %d %v %.300s", resp.StatusCode, err, body)
	}
	return a.Slots[hour].Capacity, a.Slots[hour].Remaining
}

// livePlaces lists every booking of the tenants and sums the places held in the slot
// (flight at date hh:*) by those that are live (neither Expired nor Canceled).
func livePlaces(t *testing.T, s *testServer, tenants []*slotTenant, date, hh string) int {
	t.Helper()
	held := 0
	for _, tn := range tenants {
		resp, body := s.bookingCall(http.MethodGet, bookingPath+"?limit=500", tn.token)
		var page struct {
			Data []struct {
				Status string `json:"status"`
				Flight struct {
					ScheduledAt string `json:"scheduled_at"`
				} `json:"flight"`
				Passengers []struct {
					Type skygate.PassengerType `json:"type"`
				} `json:"passengers"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &page); resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("%s bookings: %d %v %.300s", tn.name, resp.StatusCode, err, body)
		}
		for _, b := range page.Data {
			if b.Status == "Expired" || b.Status == "Canceled" || !strings.HasPrefix(b.Flight.ScheduledAt, date+"T"+hh+":") {
				continue
			}
			var party slotParty
			for _, p := range b.Passengers {
				party = append(party, p.Type)
			}
			held += party.places()
		}
	}
	return held
}

func TestScaleOutSlotCapacity(t *testing.T) {
	t.Parallel()
	env := testEnv(t, map[string]string{"SKYGATE_DATABASE_URL": pgtest.MustDSN(t)})
	var replicas []*testServer
	for range 3 {
		replicas = append(replicas, startServer(t, env))
	}
	r0 := replicas[0]
	pick := func(i int) *testServer { return replicas[i%len(replicas)] }

	// Four accounts: two with a price list (their creates also reserve money), two
	// without (their creates take places because they name the flight's time).
	var tenants []*slotTenant
	for i, name := range []string{"slot-priced-a", "slot-plain-b", "slot-priced-c", "slot-plain-d"} {
		c := r0.mustBootstrap(name, bookingScopes)
		tenants = append(tenants, &slotTenant{name: name, accountID: c.AccountID, token: r0.mustToken(c, ""), priced: i%2 == 0})
	}
	ft := r0.firstFastTrack(tenants[0].token) // at TAS, open all day
	for i, tn := range tenants {
		if tn.priced {
			r0.withPriceList(tn.accountID, ft, int64(4000+1000*i))
		}
	}
	const capacity = 7
	if resp, body := pick(1).adminCall(http.MethodPut, "/fast-tracks/"+ft+"/capacity", fmt.Sprintf(`{"capacity_per_slot":%d}`, capacity)); resp.StatusCode != http.StatusOK {
		t.Fatalf("set capacity: %d %s", resp.StatusCode, body)
	}
	tashkent, err := time.LoadLocation("Asia/Tashkent")
	if err != nil {
		t.Fatal(err)
	}
	date := time.Now().In(tashkent).AddDate(0, 0, 8).Format(time.DateOnly)
	const hour = 14
	hh := fmt.Sprintf("%02d", hour)
	for i := range replicas {
		if c, left := slotRemaining(t, pick(i), tenants[i].token, ft, date, hour); c != capacity || left != capacity {
			t.Fatalf("replica %d before: capacity %d, remaining %d, want %d, %d", i, c, left, capacity, capacity)
		}
	}

	// create sends one create of the party through replica i for tenant tn: it
	// returns the booking when created and nil when refused as SlotFull; anything else
	// fails the test.
	create := func(i int, tn *slotTenant, key string, party slotParty) *heldBooking {
		s := pick(i)
		resp, body := s.book(s.mtlsClient, tn.token, key, slotBookingBody(ft, date, hh+":"+fmt.Sprintf("%02d", (i*7)%60), key, party))
		switch {
		case resp.StatusCode == http.StatusAccepted:
			return &heldBooking{id: mustBooking(t, body).ID, tenant: tn, places: party.places()}
		case resp.StatusCode == http.StatusConflict && problemOf(t, resp, body)["code"] == "SlotFull":
			return nil
		}
		t.Errorf("create %s on replica %d: %d %s, want 202 or 409 SlotFull", key, i%len(replicas), resp.StatusCode, body)
		return nil
	}

	// A storm of creates, far more places asked for than the slot has, while a watcher
	// reads the availability from every replica: it never shows a negative remainder.
	parties := []slotParty{
		{skygate.PassengerAdult},
		{skygate.PassengerAdult, skygate.PassengerInfant},
		{skygate.PassengerAdult, skygate.PassengerChild},
		{skygate.PassengerAdult, skygate.PassengerChild, skygate.PassengerInfant},
		{skygate.PassengerAdult, skygate.PassengerAdult, skygate.PassengerChild},
	}
	const storm = 36
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		held    []*heldBooking
		refused int
		sem     = make(chan struct{}, 12)
		stop    = make(chan struct{})
		watched = make(chan int)
	)
	go func() {
		n := 0
		defer func() { watched <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if c, left := slotRemaining(t, pick(n), tenants[0].token, ft, date, hour); left < 0 || left > c {
				t.Errorf("replica %d during the storm: remaining %d of %d", n%len(replicas), left, c)
			}
			n++
		}
	}()
	for i := range storm {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b := create(i, tenants[i%len(tenants)], fmt.Sprintf("slot-storm-%d", i), parties[(i/len(tenants))%len(parties)])
			mu.Lock()
			defer mu.Unlock()
			if b == nil {
				refused++
			} else {
				held = append(held, b)
			}
		}()
	}
	wg.Wait()
	close(stop)
	reads := <-watched
	if t.Failed() {
		t.FailNow()
	}

	sum := 0
	for _, b := range held {
		sum += b.places
	}
	check := func(when string, want int) {
		t.Helper()
		live := livePlaces(t, pick(2), tenants, date, hh)
		if live > capacity || live != want {
			t.Fatalf("%s: live bookings hold %d places, want %d (capacity %d)", when, live, want, capacity)
		}
		for i := range replicas {
			if _, left := slotRemaining(t, pick(i), tenants[(i+1)%len(tenants)].token, ft, date, hour); left != capacity-live {
				t.Fatalf("%s: replica %d says %d remaining, live bookings hold %d of %d", when, i, left, live, capacity)
			}
		}
	}
	check("after the storm", sum)
	if refused == 0 || len(held) == 0 {
		t.Fatalf("storm: %d created, %d refused; want both", len(held), refused)
	}
	t.Logf("storm: %d creates, %d created holding %d of %d places, %d SlotFull; %d availability reads during it",
		storm, len(held), sum, capacity, refused, reads)

	// Cancel the bookings holding places (up to three of them), each through a replica
	// other than the one that created it: their places come back.
	freed, canceled := 0, 0
	for i, b := range held {
		if canceled == 3 || b.places == 0 {
			continue
		}
		s := pick(i + 1)
		if resp, body := s.bookingCall(http.MethodPost, bookingPath+"/"+b.id+"/cancel", b.tenant.token); resp.StatusCode != http.StatusOK {
			t.Fatalf("cancel %s: %d %s", b.id, resp.StatusCode, body)
		}
		freed += b.places
		canceled++
	}
	check("after the cancellations", sum-freed)

	// The free places are sold again, one adult at a time from every replica at once:
	// exactly as many creates succeed as places were free, the rest are SlotFull.
	free := capacity - (sum - freed)
	refill, refusedAgain := 0, 0
	for i := range free + 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := create(i, tenants[(i+1)%len(tenants)], fmt.Sprintf("slot-refill-%d", i), slotParty{skygate.PassengerAdult})
			mu.Lock()
			defer mu.Unlock()
			if b == nil {
				refusedAgain++
			} else {
				refill++
			}
		}()
	}
	wg.Wait()
	if refill != free || refusedAgain != 6 {
		t.Fatalf("refill of %d free places: %d created, %d SlotFull", free, refill, refusedAgain)
	}
	check("after the refill", capacity)
	for _, s := range replicas {
		s.checkServerLog(t)
	}
}
