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

// listBody is the body of a package list.
type listBody struct {
	Data       []skygate.ESIMPackageItem `json:"data"`
	Pagination esim.Pagination           `json:"pagination"`
}

func mustQuery(t *testing.T, raw string) esim.PackageQuery {
	t.Helper()
	q, err := esim.ParsePackageQuery(raw)
	storetest.MustNoError(t, err, "esim.ParsePackageQuery")
	return q
}

func TestPackages(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		acc := storetest.MustCreateAccount(t, s).ID
		storetest.MustNoError(t, b.svc.SeedDemo(t.Context(), acc, demoActor), "SeedDemo")
		retired := MustSetPackages(t, b.svc, acc, storetest.NewESIMPackage(func(p *skygate.ESIMPackage) { p.Active = false }))[0]
		tests := []struct {
			name, lang, query string
			want              []string // names
			total             int
		}{
			{"All", "en", "", []string{"Uzbekistan 1 GB, 7 days", "Central Asia 5 GB, 15 days", "Türkiye 10 GB, 30 days", "Global unlimited, 1 day"}, 4},
			{"Russian", "ru", "limit=1&offset=2", []string{"Турция 10 ГБ, 30 дней"}, 4},
			{"Country", "en", "country=kz", []string{"Central Asia 5 GB, 15 days", "Global unlimited, 1 day"}, 2},
			{"NameFolded", "uz", "name=O'ZBEK", []string{"Oʻzbekiston 1 GB, 7 kun"}, 1},
			{"UnknownLanguageIsEnglish", "de", "name=asia", []string{"Central Asia 5 GB, 15 days"}, 1},
			{"PastTheEnd", "en", "offset=10", nil, 4},
			{"RegionEurope", "en", "region=Europe", []string{"Global unlimited, 1 day"}, 1},
			{"RegionAsia", "en", "region=asia", []string{"Uzbekistan 1 GB, 7 days", "Central Asia 5 GB, 15 days", "Türkiye 10 GB, 30 days", "Global unlimited, 1 day"}, 4},
			{"RegionAfrica", "en", "region=africa", nil, 0},
			{"Unlimited", "en", "unlimited=true", []string{"Global unlimited, 1 day"}, 1},
			{"Limited", "en", "unlimited=false", []string{"Uzbekistan 1 GB, 7 days", "Central Asia 5 GB, 15 days", "Türkiye 10 GB, 30 days"}, 3},
			{"NotTopUp", "en", "top_up=false", []string{"Türkiye 10 GB, 30 days"}, 1},
			{"TopUp", "en", "top_up=true", []string{"Uzbekistan 1 GB, 7 days", "Central Asia 5 GB, 15 days", "Global unlimited, 1 day"}, 3},
			{"AllCombined", "en", "region=asia&unlimited=false&top_up=true&country=KZ", []string{"Central Asia 5 GB, 15 days"}, 1},
			{"CombinedWithName", "ru", "top_up=true&name=узбек", []string{"Узбекистан 1 ГБ, 7 дней"}, 1},
			{"EmptyValuesAreAbsent", "en", "region=&unlimited=&top_up=&limit=1", []string{"Uzbekistan 1 GB, 7 days"}, 4},
		}
		etags := map[string]bool{}
		for _, tt := range tests {
			p, err := b.svc.Packages(t.Context(), acc, tt.lang, mustQuery(t, tt.query))
			storetest.MustNoError(t, err, tt.name)
			var body listBody
			storetest.MustNoError(t, json.Unmarshal(p.Body, &body), "decode")
			var names []string
			for _, it := range body.Data {
				names = append(names, it.Name)
			}
			if !slices.Equal(names, tt.want) || body.Pagination.Total != tt.total || body.Pagination.Count != len(tt.want) {
				t.Errorf("%s: %v (%+v), want %v of %d", tt.name, names, body.Pagination, tt.want, tt.total)
			}
			if etags[p.ETag] {
				t.Errorf("%s: ETag %s repeats another query's", tt.name, p.ETag)
			}
			etags[p.ETag] = true
			wantLang := tt.lang
			if tt.name == "UnknownLanguageIsEnglish" {
				wantLang = "en"
			}
			if p.LastModified.IsZero() || p.Language != wantLang {
				t.Errorf("%s: Last-Modified %v, language %q", tt.name, p.LastModified, p.Language)
			}
		}

		// An account without packages has an empty list and no Last-Modified.
		empty, err := b.svc.Packages(t.Context(), storetest.MustCreateAccount(t, s).ID, "en", esim.DefaultPackageQuery)
		storetest.MustNoError(t, err, "Packages of an empty catalog")
		if string(empty.Body) != `{"data":[],"pagination":{"count":0,"offset":0,"total":0}}` || !empty.LastModified.IsZero() {
			t.Fatalf("empty catalog: %s, %v", empty.Body, empty.LastModified)
		}

		// The ETag changes with the catalog.
		before, err := b.svc.Packages(t.Context(), acc, "en", esim.DefaultPackageQuery)
		storetest.MustNoError(t, err, "Packages")
		b.clock.Advance(time.Hour)
		MustSetPackages(t, b.svc, acc, retired)
		after, err := b.svc.Packages(t.Context(), acc, "en", esim.DefaultPackageQuery)
		storetest.MustNoError(t, err, "Packages")
		if before.ETag == after.ETag || !after.LastModified.After(before.LastModified) {
			t.Fatalf("ETag %s → %s, Last-Modified %v → %v", before.ETag, after.ETag, before.LastModified, after.LastModified)
		}

		_, err = b.svc.Packages(t.Context(), acc, "en", mustQuery(t, "iata=TAS"))
		storetest.WantCode(t, err, skygate.CodeBadRequest)
		item, err := b.svc.Package(t.Context(), acc, "kk", esim.DemoPackages(acc)[0].ID)
		storetest.MustNoError(t, err, "Package")
		var one skygate.ESIMPackageItem
		storetest.MustNoError(t, json.Unmarshal(item.Body, &one), "decode")
		if one.Name != "Өзбекстан 1 ГБ, 7 күн" || *one.DataMB != 1024 || one.Price != (skygate.Money{Amount: 350, Currency: "USD"}) ||
			!slices.Equal(one.Regions, []string{"asia"}) {
			t.Fatalf("Package = %+v", one)
		}
		_, err = b.svc.Package(t.Context(), acc, "en", retired.ID)
		storetest.WantCode(t, err, skygate.CodeNotFound)
	})
}

func TestSetPackagesRejected(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 0, 0)
		other := setup(t, s, 0, 0)
		neg := -5
		bad := storetest.NewESIMPackage(func(p *skygate.ESIMPackage) {
			p.ID = "UZ-1"
			p.Name.KK = " "
			p.Countries = []string{"UZ", "uz", "UZ"}
			p.DataMB = &neg
			p.ValidityDays = 0
			p.Price = skygate.Money{Amount: -1, Currency: "$"}
		})
		_, err := b.svc.SetPackages(t.Context(), b.acc.ID, []*skygate.ESIMPackage{storetest.NewESIMPackage(), bad}, storetest.Audit("SetPackages"))
		storetest.WantCode(t, err, skygate.CodeValidation)
		var fields []string
		for _, f := range err.(*skygate.Error).Fields {
			fields = append(fields, f.Field)
		}
		want := []string{"[1].id", "[1].name.kk", "[1].countries[1]", "[1].countries[2]", "[1].data_mb",
			"[1].validity_days", "[1].price.amount", "[1].price.currency"}
		if !slices.Equal(fields, want) {
			t.Fatalf("fields = %v, want %v", fields, want)
		}
		p := storetest.NewESIMPackage()
		_, err = b.svc.SetPackages(t.Context(), b.acc.ID, []*skygate.ESIMPackage{p, p}, storetest.Audit("SetPackages"))
		storetest.WantCode(t, err, skygate.CodeValidation)
		_, err = b.svc.SetPackages(t.Context(), b.acc.ID, nil, storetest.Audit("SetPackages"))
		storetest.WantCode(t, err, skygate.CodeValidation)
		_, err = b.svc.SetPackages(t.Context(), other.acc.ID, []*skygate.ESIMPackage{b.pkg}, storetest.Audit("SetPackages"))
		storetest.WantCode(t, err, skygate.CodeConflict)
		_, err = b.svc.SetPackages(t.Context(), "no-such-account", []*skygate.ESIMPackage{storetest.NewESIMPackage()}, storetest.Audit("SetPackages"))
		storetest.WantCode(t, err, skygate.CodeNotFound)
		_, err = b.svc.AdminCatalog(t.Context(), "no-such-account")
		storetest.WantCode(t, err, skygate.CodeNotFound)
		cat, err := b.svc.AdminCatalog(t.Context(), b.acc.ID)
		storetest.MustNoError(t, err, "AdminCatalog")
		if len(cat.Packages) != 1 || cat.Version != 1 {
			t.Fatalf("AdminCatalog = %+v", cat)
		}
	})
}
