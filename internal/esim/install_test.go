package esim_test

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
	"github.com/skygate/skygate/internal/seal"
	"github.com/skygate/skygate/internal/storetest"
)

// wantInstallLinks fails unless e carries the install links of its activation code.
func wantInstallLinks(tb testing.TB, where string, e *skygate.ESIM) {
	tb.Helper()
	l := e.InstallLinks
	if l == nil || e.ActivationCode == "" {
		tb.Fatalf("%s: %s has no install links or no activation code: %+v", where, e.ICCID, l)
	}
	if l.LPA != e.ActivationCode || l.AndroidURL != e.ActivationCode ||
		l.IOSURL != skygate.AppleInstallURL+url.QueryEscape(e.ActivationCode) ||
		!strings.HasPrefix(l.PageURL, testPublicURL+skygate.InstallPagePath) {
		tb.Fatalf("%s: install links %+v of the activation code %q", where, l, e.ActivationCode)
	}
}

// pageToken returns the token of an install link's page_url.
func pageToken(tb testing.TB, e *skygate.ESIM) string {
	tb.Helper()
	if e.InstallLinks == nil {
		tb.Fatalf("%s has no install links", e.ICCID)
	}
	return strings.TrimPrefix(e.InstallLinks.PageURL, testPublicURL+skygate.InstallPagePath)
}

func TestInstallLinksOnOwnerReads(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 2, 5000)
		ctx := t.Context()
		o := MustOrder(t, b, b.pkg, 1)
		e := o.ESIMs[0]
		wantInstallLinks(t, "order create", e)

		got, err := b.svc.ESIM(ctx, b.acc.ID, e.ICCID, "ru")
		storetest.MustNoError(t, err, "ESIM")
		wantInstallLinks(t, "GET eSIM", got)
		if *got.InstallLinks != *e.InstallLinks {
			t.Errorf("links differ between reads: %+v and %+v", got.InstallLinks, e.InstallLinks)
		}
		list, err := b.svc.ListESIMs(ctx, b.acc.ID, "en", skygate.ESIMFilter{}, skygate.Page{})
		storetest.MustNoError(t, err, "ListESIMs")
		wantInstallLinks(t, "eSIM list", list.Data[0])
		order, err := b.svc.GetOrder(ctx, b.acc.ID, o.ID, "en")
		storetest.MustNoError(t, err, "GetOrder")
		wantInstallLinks(t, "GET order", order.ESIMs[0])
		orders, err := b.svc.ListOrders(ctx, b.acc.ID, "en", skygate.Page{})
		storetest.MustNoError(t, err, "ListOrders")
		wantInstallLinks(t, "order list", orders.Data[0].ESIMs[0])
		topUp, _, err := b.svc.TopUp(ctx, esim.TopUpCommand{AccountID: b.acc.ID, ClientID: "client", IdempotencyKey: "top-1",
			ICCID: e.ICCID, Lang: "en", TopUpRequest: esim.TopUpRequest{PackageID: b.pkg.ID}})
		storetest.MustNoError(t, err, "TopUp")
		wantInstallLinks(t, "top-up", topUp.ESIM)
		installed, err := b.svc.Install(ctx, b.acc.ID, e.ICCID, "en")
		storetest.MustNoError(t, err, "Install")
		wantInstallLinks(t, "sandbox install", installed)

		// Employees never see the code, nor the links.
		admin, err := b.svc.AdminESIMs(ctx, b.acc.ID, "en", skygate.ESIMFilter{}, skygate.Page{})
		storetest.MustNoError(t, err, "AdminESIMs")
		adminOrders, err := b.svc.AdminOrders(ctx, b.acc.ID, "en", skygate.Page{})
		storetest.MustNoError(t, err, "AdminOrders")
		for _, a := range append(admin.Data, adminOrders.Data[0].ESIMs...) {
			if a.InstallLinks != nil || a.ActivationCode != "" {
				t.Errorf("an admin read carries install links or the code: %+v", a)
			}
		}
	})
}

func TestInstallPage(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, s store) {
		b := setup(t, s, 2, 5000)
		ctx := t.Context()
		o := MustOrder(t, b, b.pkg, 2)
		e, other := o.ESIMs[0], o.ESIMs[1]
		token := pageToken(t, e)

		page, err := b.svc.InstallPage(ctx, token, "kk")
		storetest.MustNoError(t, err, "InstallPage")
		if !page.Installable || page.ESIM.ICCID != e.ICCID || page.ESIM.ActivationCode != e.ActivationCode ||
			len(page.QR) == 0 || page.ESIM.Package == nil {
			t.Fatalf("page of an Assigned eSIM: %+v, eSIM %+v", page, page.ESIM)
		}
		wantInstallLinks(t, "install page", page.ESIM)

		// Another account's id under a valid MAC (a token this service would mint for
		// account B naming A's ICCID) finds nothing: the store reads by account.
		stranger := storetest.MustCreateAccount(t, s)
		otherKey, err := seal.New(seal.NewMasterKey())
		storetest.MustNoError(t, err, "seal.New")
		otherSvc := esim.New(esim.Config{Store: s, Sealer: b.box, PublicURL: testPublicURL,
			InstallKey: otherKey.DeriveKey(seal.PurposeESIMInstallLink)})
		raw, err := base64.RawURLEncoding.DecodeString(token)
		storetest.MustNoError(t, err, "decode")
		flip := func(i int) string {
			c := append([]byte(nil), raw...)
			c[i] ^= 1
			return base64.RawURLEncoding.EncodeToString(c)
		}
		for _, tc := range []struct{ name, token string }{
			{"empty", ""},
			{"garbage", "not-a-token"},
			{"huge", strings.Repeat("A", 64<<10)},
			{"one character more", token + "A"},
			{"truncated by one character", token[:len(token)-1]},
			{"MAC truncated by one byte", base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1])},
			{"MAC only", base64.RawURLEncoding.EncodeToString(raw[len(raw)-16:])},
			{"version flipped", flip(0)},
			{"account id flipped", flip(3)},
			{"ICCID flipped", flip(20)},
			{"MAC flipped", flip(len(raw) - 1)},
			{"padded", token + "=="},
			{"standard base64 alphabet", token[:5] + "+" + token[6:]},
			{"with a space", token[:5] + " " + token[5:]},
			{"another key", otherSvc.InstallToken(b.acc.ID, e.ICCID)},
			{"another account's id", b.svc.InstallToken(stranger.ID, e.ICCID)},
			{"an unknown ICCID", b.svc.InstallToken(b.acc.ID, storetest.NewICCID())},
		} {
			if _, err := b.svc.InstallPage(ctx, tc.token, "en"); !skygate.IsCode(err, skygate.CodeNotFound) {
				t.Errorf("%s: %v, want CodeNotFound", tc.name, err)
			}
		}
		if pageToken(t, other) == token {
			t.Error("two eSIMs share a token")
		}

		// Installed: the page shows the state, never the code.
		_, err = b.svc.Install(ctx, b.acc.ID, e.ICCID, "en")
		storetest.MustNoError(t, err, "Install")
		page, err = b.svc.InstallPage(ctx, token, "en")
		storetest.MustNoError(t, err, "InstallPage after install")
		if got := page.ESIM; page.Installable || page.QR != nil || got.ActivationCode != "" || got.MatchingID != "" ||
			got.InstallLinks != nil || got.Status != skygate.ESIMInstalled {
			t.Fatalf("page of an Installed eSIM: %+v, eSIM %+v", page, got)
		}
	})
}

func TestInstallTokenWithoutKey(t *testing.T) {
	t.Parallel()
	svc := esim.New(esim.Config{})
	if got := svc.InstallToken(storetest.NewID(), storetest.NewICCID()); got != "" {
		t.Errorf("a service without a key made token %q", got)
	}
	if _, err := svc.InstallPage(t.Context(), "x", "en"); !skygate.IsCode(err, skygate.CodeNotFound) {
		t.Errorf("InstallPage without a key: %v", err)
	}
}
