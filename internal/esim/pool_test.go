package esim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/storetest"
)

// Valid test ICCIDs: the check digits are right.
const (
	iccidA = "8999901000000000013"
	iccidB = "89999010000000000229"
)

func TestParsePool(t *testing.T) {
	t.Parallel()
	want := []esim.ProfileInput{
		{ICCID: iccidA, SMDPAddress: "smdp.example.com", MatchingID: "AB-1"},
		{ICCID: iccidB, SMDPAddress: "rsp.example.org", MatchingID: "CD-2"},
	}
	withLines := slices.Clone(want)
	withLines[0].Line, withLines[1].Line = 2, 4
	tests := []struct {
		name        string
		contentType string
		body        string
		want        []esim.ProfileInput
		code        string
	}{
		{"JSON", "application/json", `[{"iccid":"` + iccidA + `","smdp_address":"smdp.example.com","matching_id":"AB-1"},
			{"iccid":" ` + iccidB + ` ","smdp_address":"rsp.example.org","matching_id":"CD-2"}]`, want, ""},
		{"CSV", "text/csv; charset=utf-8", "iccid,smdp_address,matching_id\n" + iccidA + ",smdp.example.com,AB-1\n\n" +
			iccidB + ", rsp.example.org,CD-2\n", withLines, ""},
		{"CSVColumnsInAnyOrderWithBOM", "text/csv", "\ufeffMatching_ID,ICCID,smdp_address\r\nAB-1," + iccidA + ",smdp.example.com\r\n",
			withLines[:1:1], ""},
		{"JSONUnknownField", "application/json", `[{"iccid":"1","imsi":"2"}]`, nil, skygate.CodeBadRequest},
		{"JSONObject", "application/json", `{"iccid":"1"}`, nil, skygate.CodeBadRequest},
		{"JSONTrailing", "application/json", `[] []`, nil, skygate.CodeBadRequest},
		{"CSVNoHeader", "text/csv", iccidA + ",smdp.example.com,AB-1\n", nil, skygate.CodeBadRequest},
		{"CSVExtraColumn", "text/csv", "iccid,smdp_address,matching_id,pin\n", nil, skygate.CodeBadRequest},
		{"CSVRagged", "text/csv", "iccid,smdp_address,matching_id\n1,2\n", nil, skygate.CodeBadRequest},
		{"CSVEmpty", "text/csv", "", nil, skygate.CodeBadRequest},
		{"XML", "application/xml", "<pool/>", nil, skygate.CodeUnsupportedMediaType},
		{"NoType", "", "[]", nil, skygate.CodeUnsupportedMediaType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := esim.ParsePool(tt.contentType, []byte(tt.body))
			if tt.code != "" {
				storetest.WantCode(t, err, tt.code)
				return
			}
			storetest.MustNoError(t, err, "ParsePool")
			if !slices.Equal(got, tt.want) {
				t.Fatalf("ParsePool = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestImportPool(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		other := setup(t, s, 2, 0)
		taken := other.pool[1].ICCID
		fresh := NewProfiles(3)
		badLuhn := fresh[0].ICCID[:18] + string('0'+(fresh[0].ICCID[18]-'0'+1)%10)
		tests := []struct {
			name    string
			in      []esim.ProfileInput
			fields  []string
			message string
		}{
			{"Empty", nil, []string{""}, ""},
			{"BadValues", []esim.ProfileInput{
				{ICCID: badLuhn, SMDPAddress: "https://smdp.example.com", MatchingID: "A$B"},
				{ICCID: "899990100000000001", SMDPAddress: "smdp", MatchingID: ""},
			}, []string{"[0].iccid", "[0].smdp_address", "[0].matching_id", "[1].iccid", "[1].smdp_address", "[1].matching_id"}, ""},
			{"RepeatedInUpload", []esim.ProfileInput{fresh[0], fresh[1], fresh[0]}, []string{"[2].iccid"}, "repeats"},
			{"InAnotherPool", []esim.ProfileInput{fresh[0], {ICCID: taken, SMDPAddress: "a.example", MatchingID: "X", Line: 7}},
				[]string{"[1].iccid"}, "line 7: is already in a pool"},
		}
		for _, tt := range tests {
			_, err := b.svc.ImportPool(t.Context(), b.acc.ID, tt.in, storetest.Audit("ImportPool"))
			storetest.WantCode(t, err, skygate.CodeValidation)
			var fields []string
			for _, f := range err.(*skygate.Error).Fields {
				fields = append(fields, f.Field)
				if tt.message != "" && !strings.Contains(f.Message, tt.message) {
					t.Errorf("%s: message %q does not say %q", tt.name, f.Message, tt.message)
				}
			}
			if !slices.Equal(fields, tt.fields) {
				t.Errorf("%s: fields %v, want %v", tt.name, fields, tt.fields)
			}
			counts, err := b.svc.PoolCounts(t.Context(), b.acc.ID)
			storetest.MustNoError(t, err, "PoolCounts")
			if counts.Total != 0 {
				t.Fatalf("%s: %d profiles imported, want none", tt.name, counts.Total)
			}
		}

		res, err := b.svc.ImportPool(t.Context(), b.acc.ID, fresh, storetest.Audit("ImportPool"))
		storetest.MustNoError(t, err, "ImportPool")
		if res.Imported != 3 || res.Pool.ByStatus[skygate.PoolAvailable] != 3 {
			t.Fatalf("ImportPool = %+v", res)
		}
		_, err = b.svc.ImportPool(t.Context(), "no-such-account", NewProfiles(1), storetest.Audit("ImportPool"))
		storetest.WantCode(t, err, skygate.CodeNotFound)
		_, err = b.svc.PoolCounts(t.Context(), "no-such-account")
		storetest.WantCode(t, err, skygate.CodeNotFound)

		// Problems beyond the first hundred are summed up in one entry.
		many := NewProfiles(150)
		for i := range many {
			many[i].MatchingID = ""
		}
		_, err = b.svc.ImportPool(t.Context(), b.acc.ID, many, storetest.Audit("ImportPool"))
		storetest.WantCode(t, err, skygate.CodeValidation)
		fields := err.(*skygate.Error).Fields
		if len(fields) != 101 || fields[100].Message != "and 50 more problems" {
			t.Fatalf("%d fields, last %+v", len(fields), fields[len(fields)-1])
		}
	})
}

func TestAddCredit(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		bad := []esim.CreditRequest{
			{Amount: skygate.Money{Amount: 0, Currency: "USD"}},
			{Amount: skygate.Money{Amount: 10, Currency: "usd"}},
			{Amount: skygate.Money{Amount: 10, Currency: "USD"}, Kind: skygate.LedgerCharge},
			{Amount: skygate.Money{Amount: skygate.MaxMoneyAmount + 1, Currency: "USD"}},
			{Amount: skygate.Money{Amount: 10, Currency: "USD"}, Description: strings.Repeat("é", 257)},
		}
		for _, req := range bad {
			_, err := b.svc.AddCredit(t.Context(), b.acc.ID, req, storetest.Audit("esim.credit"))
			storetest.WantCode(t, err, skygate.CodeValidation)
		}
		e, err := b.svc.AddCredit(t.Context(), b.acc.ID, esim.CreditRequest{Amount: skygate.Money{Amount: 700, Currency: "UZS"}, Kind: skygate.LedgerRefund, Reference: "order"}, storetest.Audit("esim.credit"))
		storetest.MustNoError(t, err, "AddCredit")
		if e.BalanceAfter != 700 || e.Kind != skygate.LedgerRefund {
			t.Fatalf("AddCredit = %+v", e)
		}
		_, err = b.svc.AddCredit(t.Context(), "no-such-account", esim.CreditRequest{Amount: skygate.Money{Amount: 1, Currency: "USD"}}, storetest.Audit("esim.credit"))
		storetest.WantCode(t, err, skygate.CodeNotFound)
	})
}
