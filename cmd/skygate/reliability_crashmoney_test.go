package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skygate/skygate"
)

// Crash consistency of money and capacity: `serve` is killed with SIGKILL at random
// moments while clients of an account with a price list create priced bookings (each
// retried with its Idempotency-Key until acknowledged) and confirm or cancel some of
// them (retried until answered), and order eSIMs and cancel some of them for a refund.
// After the last restart, for every booking and eSIM as the API shows it:
//
//   - the balance is the sum of the ledger, and equals credits − charges + refunds −
//     reserved, where reserved is the price of every Pending or Issued booking;
//   - each booking's own lines add up to what its status says it cost (a reservation,
//     a charge, a refund) — no movement lost or repeated;
//   - each slot's remaining places are its capacity less the places of the bookings
//     that hold it (every status but Expired and Canceled);
//   - each eSIM's order was charged once, and a Canceled eSIM was refunded once, with
//     a line naming it; any other eSIM not at all.

// crashMoneySlots are the scheduled local times the load books, one slot each.
var crashMoneySlots = []string{"10:15", "11:15", "12:15"}

// crashMoneyCapacity is the admin capacity of each slot: small enough that the load
// fills slots, so cancellations and SlotFull answers take part.
const crashMoneyCapacity = 60

// crashMoneyPrices are the account's prices: adult, child, infant (USD cents).
const crashAdult, crashChild, crashInfant = 2500, 1500, 0

func TestCrashMoney(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		kills := 3
		if n, err := strconv.Atoi(os.Getenv("SKYGATE_TEST_CRASH_KILLS")); err == nil && n > 0 {
			kills = n
		}
		s := startChild(t, hostileEnv(t, e, nil))
		c := s.mustBootstrap("crash-money", skygate.B2BScopes, "--sandbox")
		tok := s.mustToken(c, "")
		ft := s.firstFastTrack(tok)
		prices := fmt.Sprintf(`[{"fast_track_id":%q,"currency":"USD","adult":%d,"child":%d,"infant":%d}]`, ft, crashAdult, crashChild, crashInfant)
		if resp, body := s.adminCall(http.MethodPut, "/accounts/"+c.AccountID+"/fast-track-prices", prices); resp.StatusCode != http.StatusOK {
			t.Fatalf("prices: %d %s", resp.StatusCode, body)
		}
		if resp, body := s.adminCall(http.MethodPut, "/fast-tracks/"+ft+"/capacity", fmt.Sprintf(`{"capacity_per_slot":%d}`, crashMoneyCapacity)); resp.StatusCode != http.StatusOK {
			t.Fatalf("capacity: %d %s", resp.StatusCode, body)
		}
		// eSIMs: seedESIMCatalog credits their price (100) for each profile.
		const esimPool, esimPrice = 300, 100
		esimPkg := s.seedESIMCatalog(c.AccountID, esimPool)
		const credit = 10_000_000
		if resp, body := s.adminCall(http.MethodPost, "/accounts/"+c.AccountID+"/esim/credits",
			fmt.Sprintf(`{"amount":{"amount":%d,"currency":"USD"},"description":"crash funds"}`, credit)); resp.StatusCode != http.StatusCreated {
			t.Fatalf("credit: %d %s", resp.StatusCode, body)
		}
		date := time.Now().UTC().AddDate(0, 0, 10).Format(time.DateOnly)
		_, mtls := s.rawClients()

		load := newCrashLoad()
		var (
			mu        sync.Mutex
			acked     []string           // booking ids, in acknowledgement order
			confirmed []string           // booking ids a confirm answered 200
			done      = map[string]int{} // operations answered 200, by kind
		)
		ctx, stop := context.WithCancel(context.Background())
		wait := runWorkers(ctx, 4, func(w, i int) {
			key := fmt.Sprintf("money-%d-%d", w, i)
			switch {
			case i%8 == 4: // order an eSIM, and cancel every other one
				body := `{"package_id":"` + esimPkg + `","quantity":1,"partner_reference":"` + key + `"}`
				id := load.untilAcked(t, mtls, http.MethodPost, s.mtlsBase+"/v2/b2b/esim/orders", tok, key, body, http.StatusCreated)
				load.record(load.orders, key, id)
				if id == "" || i%16 != 4 {
					return
				}
				iccid := untilICCID(t, mtls, s.mtlsBase+"/v2/b2b/esim/orders/"+id, tok)
				if iccid != "" && untilAnswered(t, mtls, s.mtlsBase+"/v2/b2b/esims/"+iccid+"/cancel", tok) == http.StatusOK {
					mu.Lock()
					done["esim cancel"]++
					mu.Unlock()
				}
			case i%4 == 3: // confirm or cancel an acknowledged booking, or cancel a confirmed one
				op, from := "confirm", &acked
				switch rand.IntN(3) {
				case 1:
					op = "cancel"
				case 2:
					op, from = "cancel", &confirmed
				}
				mu.Lock()
				var id string
				// A confirmed booking is canceled only while another stays confirmed, so
				// that the run ends with charges kept as well as charges refunded.
				if n := len(*from); n > 0 && (from != &confirmed || n > 1) {
					id = (*from)[rand.IntN(n)]
				}
				mu.Unlock()
				if id != "" && untilAnswered(t, mtls, s.mtlsBase+bookingPath+"/"+id+"/"+op, tok) == http.StatusOK {
					mu.Lock()
					kind := op
					switch {
					case op == "confirm":
						confirmed = append(confirmed, id)
					case from == &confirmed:
						kind = "cancel confirmed"
						confirmed = slices.DeleteFunc(confirmed, func(c string) bool { return c == id })
					}
					done[kind]++
					mu.Unlock()
				}
			default:
				body := crashMoneyBody(ft, date, crashMoneySlots[i%len(crashMoneySlots)], key, i%3)
				id := load.untilAcked(t, mtls, http.MethodPost, s.mtlsBase+bookingPath, tok, key, body, http.StatusAccepted)
				load.record(load.bookings, key, id)
				if id != "" {
					mu.Lock()
					acked = append(acked, id)
					mu.Unlock()
				}
			}
			time.Sleep(10 * time.Millisecond)
		})
		for k := range kills {
			time.Sleep(time.Duration(300+rand.IntN(900)) * time.Millisecond)
			s.kill()
			t.Logf("kill %d: %d bookings acknowledged so far", k+1, load.count(load.bookings))
			s.start()
		}
		// Go on, without kills, until every kind of movement happened at least once
		// (a slow machine acknowledges few bookings between kills).
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			mu.Lock()
			all := done["confirm"] > 0 && done["cancel"] > 0 && done["cancel confirmed"] > 0 && done["esim cancel"] > 0
			mu.Unlock()
			if all {
				break
			}
		}
		time.Sleep(500 * time.Millisecond)
		stop()
		wait()
		if t.Failed() {
			t.FailNow()
		}

		bookings := s.crashBookings(t, mtls, tok)
		checkOnePerKey(t, "booking", load.bookings, refItems(bookings))
		checkOnePerKey(t, "eSIM order", load.orders, s.listAll(t, mtls, s.mtlsBase+"/v2/b2b/esim/orders", tok))
		entries, balance := s.crashLedger(t, tok)
		checkCrashMoney(t, credit+esimPool*esimPrice, bookings, entries, balance)
		canceled := checkCrashESIMs(t, esimPrice, s.crashESIMs(t, tok), entries)
		s.checkCrashSlots(t, tok, ft, date, bookings)
		for _, l := range s.logProblems() {
			t.Errorf("server log: %.400s", l)
		}
		statuses := map[string]int{}
		for _, b := range bookings {
			if b.Status == "Canceled" && wasConfirmed(b) {
				statuses["Canceled after confirm"]++
			} else {
				statuses[b.Status]++
			}
		}
		// The run is only a test of money when it confirmed and canceled bookings.
		if statuses["Confirmed"] == 0 || statuses["Canceled"] == 0 || statuses["Canceled after confirm"] == 0 {
			t.Errorf("the load did not reach every kind of movement: %v", statuses)
		}
		if canceled == 0 {
			t.Errorf("the load canceled no eSIM")
		}
		t.Logf("%s: %d kills, %d bookings acknowledged (%d requests repeated), %d eSIM orders (%d canceled), %d ledger lines, bookings %v, other answers %v",
			e.name, kills, len(load.bookings), load.retries, len(load.orders), canceled, len(entries), statuses, load.statuses)
	})
}

// crashMoneyBody is a create request for the slot at hhmm on date with one adult and,
// by kind, nobody else (0), a child (1) or an infant (2).
func crashMoneyBody(fastTrackID, date, hhmm, ref string, kind int) string {
	others := []string{"", `,{"first_name":"Timur","last_name":"Karimov","type":"child"}`,
		`,{"first_name":"Lola","last_name":"Karimova","type":"infant"}`}[kind]
	return fmt.Sprintf(`{"fast_track_id":%q,"service_date":%q,"flight":{"number":"HY601","direction":"departure","scheduled_at":"%sT%s"},`+
		`"passengers":[{"first_name":"Aziza","last_name":"Karimova","type":"adult"}%s],"partner_reference":%q}`,
		fastTrackID, date, date, hhmm, others, ref)
}

// untilAnswered POSTs to url until the server answers other than with a 5xx or a
// connection error, and returns the status: 200 or 409 (the booking is not in a
// status that allows it) are both final answers.
func untilAnswered(t *testing.T, c *http.Client, url, tok string) int {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodPost, url, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict:
				return resp.StatusCode
			case resp.StatusCode < 500:
				t.Errorf("POST %s: %d", url, resp.StatusCode)
				return resp.StatusCode
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Errorf("POST %s never answered", url)
	return 0
}

// crashBooking is what the checks read of a booking.
type crashBooking struct {
	ID         string         `json:"id"`
	Ref        string         `json:"partner_reference"`
	Status     string         `json:"status"`
	Price      *skygate.Money `json:"price"`
	Refund     *skygate.Money `json:"refund"`
	Flight     skygate.Flight `json:"flight"`
	Passengers []struct {
		Type skygate.PassengerType `json:"type"`
	} `json:"passengers"`
	History []struct {
		Status string `json:"status"`
	} `json:"status_history"`
}

// crashBookings reads every booking of the account.
func (s *testServer) crashBookings(t *testing.T, c *http.Client, tok string) []crashBooking {
	t.Helper()
	var out []crashBooking
	for offset := 0; ; offset += 500 {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s%s?limit=500&offset=%d", s.mtlsBase, bookingPath, offset), nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Data       []crashBooking `json:"data"`
			Pagination struct{ Total int }
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("list bookings: %d %v", resp.StatusCode, err)
		}
		out = append(out, page.Data...)
		if len(page.Data) == 0 || offset+len(page.Data) >= page.Pagination.Total {
			return out
		}
	}
}

func refItems(bs []crashBooking) []refItem {
	out := make([]refItem, len(bs))
	for i, b := range bs {
		out[i] = refItem{ID: b.ID, Ref: b.Ref}
	}
	return out
}

// crashEntry is what the checks read of a ledger line.
type crashEntry struct {
	Kind      skygate.LedgerKind `json:"kind"`
	Amount    skygate.Money      `json:"amount"`
	BookingID *string            `json:"booking_id"`
	ICCID     *string            `json:"iccid"`
	Reference string             `json:"reference"`
}

// crashBalance is the USD balance.
type crashBalance struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Reserved int64  `json:"reserved"`
}

// crashLedger reads the whole ledger and the USD balance of the token's account.
func (s *testServer) crashLedger(t *testing.T, tok string) ([]crashEntry, crashBalance) {
	t.Helper()
	var (
		out     []crashEntry
		balance crashBalance
	)
	for offset := 0; ; offset += 500 {
		resp, body := s.partnerCall(http.MethodGet, fmt.Sprintf("/v2/b2b/billing?limit=500&offset=%d", offset), tok, "", nil)
		var b struct {
			Balances []crashBalance `json:"balances"`
			Ledger   struct {
				Data       []crashEntry `json:"data"`
				Pagination struct{ Total int }
			} `json:"ledger"`
		}
		if err := json.Unmarshal(body, &b); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("billing: %d %.300s", resp.StatusCode, body)
		}
		if offset == 0 {
			for _, x := range b.Balances {
				if x.Currency == "USD" {
					balance = x
				}
			}
		}
		out = append(out, b.Ledger.Data...)
		if len(b.Ledger.Data) == 0 || offset+len(b.Ledger.Data) >= b.Ledger.Pagination.Total {
			return out, balance
		}
	}
}

// checkCrashMoney checks the ledger against the bookings (see TestCrashMoney).
func checkCrashMoney(t *testing.T, credit int64, bookings []crashBooking, entries []crashEntry, balance crashBalance) {
	t.Helper()
	var sum, charges, refunds, credits int64
	perBooking := map[string]int64{}
	reservations := map[string]int{}
	for _, e := range entries {
		if e.Amount.Currency != "USD" {
			t.Errorf("a line in %s: %+v", e.Amount.Currency, e)
		}
		sum += e.Amount.Amount
		switch e.Kind {
		case skygate.LedgerCredit:
			credits += e.Amount.Amount
		case skygate.LedgerCharge:
			charges -= e.Amount.Amount
		case skygate.LedgerRefund:
			refunds += e.Amount.Amount
		case skygate.LedgerReservation:
			reservations[deref(e.BookingID)]++
		}
		if e.BookingID != nil {
			perBooking[*e.BookingID] += e.Amount.Amount
		}
	}
	if credits != credit {
		t.Errorf("credits %d, want %d", credits, credit)
	}
	var reserved int64
	for _, b := range bookings {
		if b.Price == nil {
			t.Errorf("booking %s has no price", b.ID)
			continue
		}
		if reservations[b.ID] != 1 {
			t.Errorf("booking %s: %d reservations", b.ID, reservations[b.ID])
		}
		var want int64 // what the booking's lines add up to
		switch b.Status {
		case "Pending", "Issued":
			want = -b.Price.Amount
			reserved += b.Price.Amount
		case "Confirmed", "Completed":
			want = -b.Price.Amount
		case "Expired":
			want = 0
		case "Canceled":
			if wasConfirmed(b) {
				if b.Refund == nil {
					t.Errorf("booking %s canceled after confirm without a refund", b.ID)
					continue
				}
				want = -b.Price.Amount + b.Refund.Amount
			}
		}
		if got := perBooking[b.ID]; got != want {
			t.Errorf("booking %s (%s, price %d, refund %v): its lines add up to %d, want %d", b.ID, b.Status, b.Price.Amount, b.Refund, got, want)
		}
	}
	if balance.Amount != sum {
		t.Errorf("balance %d, but the ledger adds up to %d", balance.Amount, sum)
	}
	if balance.Reserved != reserved {
		t.Errorf("reserved %d, but live bookings hold %d", balance.Reserved, reserved)
	}
	if want := credits - charges + refunds - reserved; balance.Amount != want {
		t.Errorf("balance %d, want credits %d − charges %d + refunds %d − reserved %d = %d",
			balance.Amount, credits, charges, refunds, reserved, want)
	}
}

func wasConfirmed(b crashBooking) bool {
	for _, h := range b.History {
		if h.Status == "Confirmed" {
			return true
		}
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkCrashSlots checks each slot's remaining places against the bookings holding it.
func (s *testServer) checkCrashSlots(t *testing.T, tok, ft, date string, bookings []crashBooking) {
	t.Helper()
	held := map[string]int{} // slot start "HH:00" → places
	for _, b := range bookings {
		if b.Status == "Expired" || b.Status == "Canceled" {
			continue
		}
		_, hhmm, _ := strings.Cut(b.Flight.ScheduledAt, "T")
		for _, p := range b.Passengers {
			if p.Type.TakesPlace() {
				held[hhmm[:2]+":00"]++
			}
		}
	}
	resp, body := s.partnerCall(http.MethodGet, "/v2/catalog/fast-tracks/"+ft+"/availability?date="+date, tok, "", nil)
	var a struct {
		Slots []struct {
			Start     string `json:"start"`
			Capacity  int    `json:"capacity"`
			Remaining int    `json:"remaining"`
		} `json:"slots"`
	}
	if err := json.Unmarshal(body, &a); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("availability: %d %.300s", resp.StatusCode, body)
	}
	seen := 0
	for _, sl := range a.Slots {
		if h, ok := held[sl.Start]; ok || sl.Remaining != sl.Capacity {
			seen++
			if sl.Capacity != crashMoneyCapacity || sl.Remaining != sl.Capacity-h {
				t.Errorf("slot %s: capacity %d, remaining %d; the bookings hold %d of %d", sl.Start, sl.Capacity, sl.Remaining, h, crashMoneyCapacity)
			}
		}
	}
	if seen != len(held) {
		t.Errorf("availability shows %d slots in use, the bookings hold %d: %.500s", seen, len(held), body)
	}
}
