package httpapi

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/esim"
)

// eSIM routes: the account's own package catalog, orders, eSIMs, top-ups, billing,
// sandbox drivers and the admin side (packages, pool, credits).

func (s *Server) esimPackages(w http.ResponseWriter, r *http.Request) error {
	lang := requestLanguage(r)
	q, err := esim.ParsePackageQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	page, err := s.deps.ESIM.Packages(r.Context(), accountIDOf(r.Context()), lang, q)
	if err != nil {
		return err
	}
	return writePage(w, r, page)
}

func (s *Server) esimPackage(w http.ResponseWriter, r *http.Request) error {
	page, err := s.deps.ESIM.Package(r.Context(), accountIDOf(r.Context()), requestLanguage(r), r.PathValue("packageID"))
	if err != nil {
		return err
	}
	return writePage(w, r, page)
}

// createESIMOrder places an all-or-nothing order under an Idempotency-Key: 201 with
// the order and its eSIMs (activation codes included; this and GET are the only places
// they appear), 402 InsufficientFunds, 409 PoolExhausted.
func (s *Server) createESIMOrder(w http.ResponseWriter, r *http.Request) error {
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var req esim.OrderRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	c := principalOf(r.Context())
	livemode, err := s.livemode(r)
	if err != nil {
		return err
	}
	o, replayed, err := s.deps.ESIM.Order(r.Context(), esim.OrderCommand{AccountID: c.AccountID, ClientID: c.ClientID,
		IdempotencyKey: key, Lang: contentLanguage(w, r), Livemode: livemode, OrderRequest: req})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v2/b2b/esim/orders/"+o.ID)
	w.Header().Set("Cache-Control", "no-store")
	return writeIdempotent(w, http.StatusCreated, replayed, o)
}

func (s *Server) listESIMOrders(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	lang := contentLanguage(w, r)
	return writePaged(w, r, func(p skygate.Page) (*skygate.List[*skygate.ESIMOrder], error) {
		return s.deps.ESIM.ListOrders(r.Context(), accountIDOf(r.Context()), lang, p)
	})
}

func (s *Server) getESIMOrder(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return reply(w, http.StatusOK)(s.deps.ESIM.GetOrder(r.Context(), accountIDOf(r.Context()), r.PathValue("orderID"), contentLanguage(w, r)))
}

func (s *Server) listESIMs(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	lang, f := contentLanguage(w, r), esimFilter(r)
	return writePaged(w, r, func(p skygate.Page) (*skygate.List[*skygate.ESIM], error) {
		return s.deps.ESIM.ListESIMs(r.Context(), accountIDOf(r.Context()), lang, f, p)
	})
}

// esimFilter reads the filters of an eSIM list from the query.
func esimFilter(r *http.Request) skygate.ESIMFilter {
	q := r.URL.Query()
	return skygate.ESIMFilter{Status: skygate.ESIMStatus(q.Get("status")), OrderID: q.Get("order_id")}
}

func (s *Server) getESIM(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return reply(w, http.StatusOK)(s.deps.ESIM.ESIM(r.Context(), accountIDOf(r.Context()), r.PathValue("iccid"), contentLanguage(w, r)))
}

// esimQR answers the activation code as a QR code PNG.
func (s *Server) esimQR(w http.ResponseWriter, r *http.Request) error {
	return writePNG(w)(s.deps.ESIM.QRCode(r.Context(), accountIDOf(r.Context()), r.PathValue("iccid")))
}

// esimInstructions answers the install and setup steps of an eSIM in the negotiated
// language; they name its matching ID, so they are no-store like the eSIM itself.
func (s *Server) esimInstructions(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	in, err := s.deps.ESIM.Instructions(r.Context(), accountIDOf(r.Context()), r.PathValue("iccid"), contentLanguage(w, r))
	if err != nil {
		return err
	}
	addVary(w.Header(), "Accept-Language") // a problem is the same in every language
	return reply(w, http.StatusOK)(in, nil)
}

// createTopUp adds a top-up package to an eSIM under an Idempotency-Key: 201 with the
// top-up and the eSIM after it.
func (s *Server) createTopUp(w http.ResponseWriter, r *http.Request) error {
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var req esim.TopUpRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	c := principalOf(r.Context())
	t, replayed, err := s.deps.ESIM.TopUp(r.Context(), esim.TopUpCommand{AccountID: c.AccountID, ClientID: c.ClientID,
		IdempotencyKey: key, ICCID: r.PathValue("iccid"), Lang: contentLanguage(w, r), TopUpRequest: req})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store") // the eSIM's activation code is in it
	return writeIdempotent(w, http.StatusCreated, replayed, t)
}

func (s *Server) esimBilling(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return writePaged(w, r, func(p skygate.Page) (*esim.Billing, error) {
		return s.deps.ESIM.Billing(r.Context(), accountIDOf(r.Context()), p)
	})
}

type usageRequest struct {
	UsedMB *int `json:"used_mb"`
}

// profileRequest is the body of POST /v2/sandbox/esims/{iccid}/profile.
type profileRequest struct {
	State *skygate.ProfileState `json:"state"`
}

// sandboxESIM drives an eSIM as the device, the network and the SM-DP+ would, for
// sandbox applications: install, activate, report cumulative usage, or report the
// profile's state.
func (s *Server) sandboxESIM(action string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		sandbox, err := s.isSandbox(r)
		if err != nil {
			return err
		}
		if !sandbox {
			return skygate.Errorf(skygate.CodeForbidden, "sandbox routes are for sandbox applications only")
		}
		acc, iccid, lang := accountIDOf(r.Context()), r.PathValue("iccid"), contentLanguage(w, r)
		var e *skygate.ESIM
		switch action {
		case "install":
			e, err = s.deps.ESIM.Install(r.Context(), acc, iccid, lang)
		case "activate":
			e, err = s.deps.ESIM.Activate(r.Context(), acc, iccid, lang)
		case "profile":
			var req profileRequest
			if _, err := decodeJSON(w, r, &req); err != nil {
				return err
			}
			if req.State == nil {
				return skygate.ValidationError(skygate.FieldError{Field: "state", Message: "is required"})
			}
			e, err = s.deps.ESIM.SetProfileState(r.Context(), acc, iccid, lang, *req.State)
		default:
			var req usageRequest
			if _, err := decodeJSON(w, r, &req); err != nil {
				return err
			}
			if req.UsedMB == nil {
				return skygate.ValidationError(skygate.FieldError{Field: "used_mb", Message: "is required"})
			}
			e, err = s.deps.ESIM.ReportUsage(r.Context(), acc, iccid, lang, *req.UsedMB)
		}
		w.Header().Set("Cache-Control", "no-store") // the activation code is in it
		return reply(w, http.StatusOK)(e, err)
	}
}

func (s *Server) adminESIMPackages(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.ESIM.AdminCatalog(r.Context(), r.PathValue("accountID")))
}

// adminSetESIMPackages upserts packages: the listed ones are created or replaced,
// others stay (retire one with "active": false). A package without "active" is
// active.
func (s *Server) adminSetESIMPackages(w http.ResponseWriter, r *http.Request) error {
	var pkgs []*skygate.ESIMPackage
	body, err := decodeJSON(w, r, &pkgs)
	if err != nil {
		return err
	}
	var given []struct {
		Active *bool `json:"active"`
	}
	if err := json.Unmarshal(body, &given); err != nil {
		return err // decodeJSON accepted the body, so this cannot happen
	}
	for i, p := range pkgs {
		if p != nil && given[i].Active == nil {
			p.Active = true
		}
	}
	acc := r.PathValue("accountID")
	ids := make([]string, len(pkgs))
	for i, p := range pkgs {
		if p != nil {
			ids[i] = p.ID
		}
	}
	audit, err := s.audit(r.Context(), "esim.packages.set", "account", acc, acc, map[string]any{"package_ids": ids})
	if err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.deps.ESIM.SetPackages(r.Context(), acc, pkgs, audit))
}

func (s *Server) adminPoolCounts(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.deps.ESIM.PoolCounts(r.Context(), r.PathValue("accountID")))
}

// adminImportPool imports profiles from a JSON array or a CSV file, all or nothing.
// Matching IDs are secrets: they are sealed at rest and never logged or audited.
func (s *Server) adminImportPool(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPoolBodyBytes))
	if err != nil {
		return skygate.Errorf(skygate.CodePayloadTooLarge, "the body exceeds %d bytes", maxPoolBodyBytes)
	}
	in, err := esim.ParsePool(r.Header.Get("Content-Type"), body)
	if err != nil {
		return err
	}
	acc := r.PathValue("accountID")
	// All or nothing: a committed import imported every profile.
	audit, err := s.audit(r.Context(), "esim.pool.import", "account", acc, acc, map[string]int{"imported": len(in)})
	if err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.deps.ESIM.ImportPool(r.Context(), acc, in, audit))
}

func (s *Server) adminCredit(w http.ResponseWriter, r *http.Request) error {
	var req esim.CreditRequest
	if _, err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	acc := r.PathValue("accountID")
	audit, err := s.audit(r.Context(), "esim.credit", "account", acc, acc, req)
	if err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.deps.ESIM.AddCredit(r.Context(), acc, req, audit))
}

// adminESIMBilling answers an account's balances and a page of its ledger.
func (s *Server) adminESIMBilling(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return writePaged(w, r, func(p skygate.Page) (*esim.Billing, error) {
		return s.deps.ESIM.AdminBilling(r.Context(), r.PathValue("accountID"), p)
	})
}

// adminESIMOrders answers a page of an account's orders with their eSIMs, without
// activation codes.
func (s *Server) adminESIMOrders(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	lang := contentLanguage(w, r)
	return writePaged(w, r, func(p skygate.Page) (*skygate.List[*skygate.ESIMOrder], error) {
		return s.deps.ESIM.AdminOrders(r.Context(), r.PathValue("accountID"), lang, p)
	})
}

// adminESIMs answers a page of an account's eSIMs with their status and usage, without
// activation codes.
func (s *Server) adminESIMs(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	lang, f := contentLanguage(w, r), esimFilter(r)
	return writePaged(w, r, func(p skygate.Page) (*skygate.List[*skygate.ESIM], error) {
		return s.deps.ESIM.AdminESIMs(r.Context(), r.PathValue("accountID"), lang, f, p)
	})
}
