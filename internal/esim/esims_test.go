package esim_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

func TestSandboxLifecycle(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 1, 500)
		iccid := MustOrder(t, b, b.pkg, 1).ESIMs[0].ICCID
		ctx := t.Context()

		_, err := b.svc.Activate(ctx, b.acc.ID, iccid, "en")
		storetest.WantCode(t, err, skygate.CodeConflict) // not installed yet
		_, err = b.svc.ReportUsage(ctx, b.acc.ID, iccid, "en", 10)
		storetest.WantCode(t, err, skygate.CodeConflict) // not active yet
		_, err = b.svc.Install(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Install")
		b.clock.Advance(time.Hour)
		e, err := b.svc.Activate(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "Activate")
		wantExpiry := storetest.Stored(storetest.T0.Add(time.Hour).AddDate(0, 0, 7))
		if e.Status != skygate.ESIMActive || e.ExpiresAt == nil || !e.ExpiresAt.Equal(wantExpiry) || e.ActivationCode == "" {
			t.Fatalf("after Activate: %+v", e)
		}

		// Usage reports: 80 % and 100 % are announced once each, however often they are
		// reached, and 100 % depletes the eSIM.
		steps := []struct {
			used   int
			code   string
			status skygate.ESIMStatus
		}{
			{100, "", skygate.ESIMActive},
			{50, skygate.CodeValidation, skygate.ESIMActive}, // usage never decreases
			{819, "", skygate.ESIMActive},                    // 79.98 %
			{820, "", skygate.ESIMActive},                    // 80.08 %: threshold 80
			{900, "", skygate.ESIMActive},                    // still past 80: no new event
			{5000, "", skygate.ESIMDepleted},                 // capped at 1024: threshold 100
			{1024, skygate.CodeConflict, skygate.ESIMDepleted},
			{-1, skygate.CodeValidation, skygate.ESIMDepleted},
		}
		for _, st := range steps {
			got, err := b.svc.ReportUsage(ctx, b.acc.ID, iccid, "en", st.used)
			if st.code != "" {
				storetest.WantCode(t, err, st.code)
				continue
			}
			storetest.MustNoError(t, err, "ReportUsage")
			e = got
			if e.Status != st.status {
				t.Fatalf("after %d MB: status %s, want %s", st.used, e.Status, st.status)
			}
		}
		if e.Usage.UsedMB != 1024 || *e.Usage.RemainingMB != 0 {
			t.Fatalf("usage = %+v", e.Usage)
		}
		events := storetest.MustAccountEvents(t, s, b.acc.ID)
		var thresholds []int
		var statuses []string
		for _, ev := range events {
			switch ev.Type {
			case skygate.EventESIMUsageThreshold:
				var d skygate.ESIMUsageThresholdData
				storetest.MustNoError(t, json.Unmarshal(ev.Data, &d), "decode")
				thresholds = append(thresholds, d.Threshold)
			case skygate.EventESIMStatusChanged:
				var d skygate.ESIMStatusChangedData
				storetest.MustNoError(t, json.Unmarshal(ev.Data, &d), "decode")
				statuses = append(statuses, string(d.PreviousStatus)+">"+string(d.Status))
			}
		}
		if !slices.Equal(thresholds, []int{80, 100}) {
			t.Fatalf("thresholds announced: %v, want [80 100]", thresholds)
		}
		if !slices.Equal(statuses, []string{"Assigned>Installed", "Installed>Active", "Active>Depleted"}) {
			t.Fatalf("status changes: %v", statuses)
		}

		// A top-up brings it back to Active; the thresholds are announced again for the
		// new allowance.
		_, _, err = b.svc.TopUp(ctx, esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "c", ICCID: iccid, IdempotencyKey: "t1", Lang: "en", TopUpRequest: esim.TopUpRequest{PackageID: b.pkg.ID}})
		storetest.WantCode(t, err, skygate.CodeInsufficientFunds)
		MustCredit(t, b.svc, b.acc.ID, 500)
		res, replayed, err := b.svc.TopUp(ctx, esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "c", ICCID: iccid, IdempotencyKey: "t1", Lang: "en", TopUpRequest: esim.TopUpRequest{PackageID: b.pkg.ID}})
		storetest.MustNoError(t, err, "TopUp")
		e = res.ESIM
		if e.Status != skygate.ESIMActive || *e.Usage.TotalMB != 2048 || e.ActivationCode == "" || replayed {
			t.Fatalf("after TopUp: %+v", res)
		}
		replay, replayed, err := b.svc.TopUp(ctx, esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "c", ICCID: iccid, IdempotencyKey: "t1", Lang: "en", TopUpRequest: esim.TopUpRequest{PackageID: b.pkg.ID}})
		storetest.MustNoError(t, err, "TopUp replay")
		if !replayed || replay.ID != res.ID {
			t.Fatalf("replay = %+v", replay)
		}
		_, _, err = b.svc.TopUp(ctx, esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "c", ICCID: iccid, IdempotencyKey: "t1", Lang: "en", TopUpRequest: esim.TopUpRequest{PackageID: storetest.NewESIMPackage().ID}})
		storetest.WantCode(t, err, skygate.CodeIdempotencyConflict)
		_, err = b.svc.ReportUsage(ctx, b.acc.ID, iccid, "en", 1700)
		storetest.MustNoError(t, err, "ReportUsage after top-up")
		if got := eventTypes(t, s, b.acc.ID); got[len(got)-1] != skygate.EventESIMUsageThreshold {
			t.Fatalf("no threshold event after the top-up: %v", got)
		}

		// Expiry: nothing before the end of validity, then Expired.
		n, err := b.svc.ExpireDue(ctx, 0)
		storetest.MustNoError(t, err, "ExpireDue")
		b.clock.Advance(15 * 24 * time.Hour)
		m, err := b.svc.ExpireDue(ctx, 0)
		storetest.MustNoError(t, err, "ExpireDue later")
		e, err = b.svc.ESIM(ctx, b.acc.ID, iccid, "en")
		storetest.MustNoError(t, err, "ESIM")
		if n != 0 || m != 1 || e.Status != skygate.ESIMExpired {
			t.Fatalf("expired %d then %d; status %s", n, m, e.Status)
		}
	})
}

func TestTopUpRejected(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 1, 5000)
		iccid := MustOrder(t, b, b.pkg, 1).ESIMs[0].ICCID
		notTopUp := MustSetPackages(t, b.svc, b.acc.ID, storetest.NewESIMPackage())[0]
		turkey := MustSetPackages(t, b.svc, b.acc.ID, storetest.NewESIMPackage(storetest.AsTopUp,
			func(p *skygate.ESIMPackage) { p.Countries = []string{"TR"} }))[0]
		tests := []struct {
			name  string
			iccid string
			req   esim.TopUpRequest
			code  string
		}{
			{"NotTopUp", iccid, esim.TopUpRequest{PackageID: notTopUp.ID}, skygate.CodeValidation},
			{"OtherCountries", iccid, esim.TopUpRequest{PackageID: turkey.ID}, skygate.CodeValidation},
			{"NoPackage", iccid, esim.TopUpRequest{}, skygate.CodeValidation},
			{"UnknownESIM", storetest.NewICCID(), esim.TopUpRequest{PackageID: b.pkg.ID}, skygate.CodeNotFound},
			{"NotAnICCID", "123", esim.TopUpRequest{PackageID: b.pkg.ID}, skygate.CodeNotFound},
		}
		for _, tt := range tests {
			_, _, err := b.svc.TopUp(t.Context(), esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "c", ICCID: tt.iccid, IdempotencyKey: "k-" + tt.name, Lang: "en", TopUpRequest: tt.req})
			storetest.WantCode(t, err, tt.code)
		}
	})
}

func TestListESIMs(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 5, 5000)
		o := MustOrder(t, b, b.pkg, 3)
		_, err := b.svc.Install(t.Context(), b.acc.ID, o.ESIMs[1].ICCID, "kk")
		storetest.MustNoError(t, err, "Install")
		list, err := b.svc.ListESIMs(t.Context(), b.acc.ID, "kk", skygate.ESIMFilter{Status: skygate.ESIMInstalled}, skygate.Page{})
		storetest.MustNoError(t, err, "ListESIMs")
		if list.Pagination.Total != 1 || list.Data[0].ICCID != o.ESIMs[1].ICCID || list.Data[0].Package.Name != b.pkg.Name.KK ||
			list.Data[0].ActivationCode == "" {
			t.Fatalf("ListESIMs = %+v", list)
		}
		for _, bad := range []struct {
			f skygate.ESIMFilter
			p skygate.Page
		}{
			{skygate.ESIMFilter{Status: "active"}, skygate.Page{}},
			{skygate.ESIMFilter{}, skygate.Page{Limit: 501}},
			{skygate.ESIMFilter{}, skygate.Page{Offset: -1}},
		} {
			_, err := b.svc.ListESIMs(t.Context(), b.acc.ID, "en", bad.f, bad.p)
			storetest.WantCode(t, err, skygate.CodeBadRequest)
		}
	})
}
