package skygate

// This file holds eSIMs (CONTRACT §6): money, the per-account package catalog, the
// profile pool, orders, eSIMs and their status machine, top-ups and the billing ledger.
// The ESIMStore contract is in esimstore.go.

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Money is an amount in the minor unit of an ISO 4217 currency (cents for USD, tiyin
// for UZS), so no value is ever rounded. Currency is three upper-case letters.
type Money struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// MaxMoneyAmount bounds every price, credit and balance change (10^12 minor units),
// so that a quantity of 50 times a price, or a sum of many credits, cannot overflow.
const MaxMoneyAmount int64 = 1_000_000_000_000

// IsCurrency reports whether c has the form of an ISO 4217 alphabetic code: three
// upper-case ASCII letters. The list of codes is not checked; an account simply has no
// balance in a currency that does not exist.
func IsCurrency(c string) bool { return len(c) == 3 && !strings.ContainsFunc(c, notUpper) }

// IsCountryCode reports whether c has the form of an ISO 3166-1 alpha-2 code: two
// upper-case ASCII letters.
func IsCountryCode(c string) bool { return len(c) == 2 && !strings.ContainsFunc(c, notUpper) }

func notUpper(r rune) bool { return r < 'A' || r > 'Z' }

// notLDH reports whether r is not an ASCII letter, digit or hyphen.
func notLDH(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-')
}

// ESIMPackage is a data plan an account may sell: the stored and admin form. Every
// account has its own packages; ID is unique across accounts. Countries are ISO 3166-1
// alpha-2 codes where the plan works. DataMB is the data allowance in megabytes, nil for
// unlimited. ValidityDays counts from activation (first use). TopUp marks a package that
// may also be bought for an existing eSIM. Inactive packages are hidden from partners and
// cannot be ordered, but stay for the orders that used them. APN is the access point
// its eSIMs need, nil when the network sets it. RefundWindowDays is how many days after
// its order an unused eSIM may be canceled for a refund (0: never), for the eSIMs sold
// from then on (ESIM.RefundUntil); nil as written keeps the stored window, or means
// DefaultRefundWindowDays for a new package, and the store always returns it set.
type ESIMPackage struct {
	ID               string        `json:"id"`
	AccountID        string        `json:"account_id"`
	Name             LocalizedText `json:"name"`
	Countries        []string      `json:"countries"`
	DataMB           *int          `json:"data_mb"`
	ValidityDays     int           `json:"validity_days"`
	Price            Money         `json:"price"`
	TopUp            bool          `json:"top_up"`
	Active           bool          `json:"active"`
	APN              *APN          `json:"apn"`
	RefundWindowDays *int          `json:"refund_window_days"`
	CreatedAt        time.Time     `json:"created_at"`
	UpdatedAt        time.Time     `json:"updated_at"`
}

// Limits of a package.
const (
	MaxESIMPackageNameLen = 128
	MaxESIMDataMB         = 10_000_000 // 10 TB
	MaxESIMValidityDays   = 3650
)

// ESIMPackageItem is the partner-facing form of a package: Name is in the negotiated
// language and every field is always present (data_mb is null for unlimited).
// RefundWindowDays is the package's refund window (0: no refunds). Regions are the
// UN M49 continental regions (africa, americas, asia, europe, oceania) in which at
// least one of its countries lies, sorted; In leaves them nil and the esim service,
// which owns the region table, fills them in every item it answers.
type ESIMPackageItem struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Countries        []string `json:"countries"`
	DataMB           *int     `json:"data_mb"`
	ValidityDays     int      `json:"validity_days"`
	Price            Money    `json:"price"`
	TopUp            bool     `json:"top_up"`
	RefundWindowDays int      `json:"refund_window_days"`
	Regions          []string `json:"regions"`
}

// In returns p in the partner-facing form with its name in lang.
func (p *ESIMPackage) In(lang string) *ESIMPackageItem {
	return &ESIMPackageItem{
		ID: p.ID, Name: p.Name.In(lang), Countries: slices.Clone(p.Countries), DataMB: clonePtr(p.DataMB),
		ValidityDays: p.ValidityDays, Price: p.Price, TopUp: p.TopUp, RefundWindowDays: p.RefundWindow(),
	}
}

// RefundWindow returns p's refund window in days, DefaultRefundWindowDays when unset.
func (p *ESIMPackage) RefundWindow() int {
	if p.RefundWindowDays == nil {
		return DefaultRefundWindowDays
	}
	return *p.RefundWindowDays
}

// Validate returns the problems of p as an admin sends it; field names start with
// prefix (such as "packages[2]"). An empty ID is allowed (the service assigns one).
func (p *ESIMPackage) Validate(prefix string) []FieldError {
	var errs []FieldError
	add := func(field, msg string) { errs = append(errs, FieldError{Field: prefix + "." + field, Message: msg}) }
	if p.ID != "" && !IsID(p.ID) {
		add("id", "must be a lowercase UUID or empty")
	}
	for _, lang := range Languages {
		name := strings.TrimSpace(p.Name.In(lang))
		switch {
		case name == "":
			add("name."+lang, "is required")
		case len([]rune(name)) > MaxESIMPackageNameLen:
			add("name."+lang, "must be at most 128 characters")
		}
	}
	if len(p.Countries) == 0 {
		add("countries", "must list at least one country")
	}
	for i, c := range p.Countries {
		if !IsCountryCode(c) {
			add("countries["+strconv.Itoa(i)+"]", "must be an ISO 3166-1 alpha-2 code in upper case")
		} else if slices.Index(p.Countries, c) < i {
			add("countries["+strconv.Itoa(i)+"]", "is listed twice")
		}
	}
	if p.DataMB != nil && (*p.DataMB < 1 || *p.DataMB > MaxESIMDataMB) {
		add("data_mb", "must be between 1 and 10000000, or null for unlimited")
	}
	if p.ValidityDays < 1 || p.ValidityDays > MaxESIMValidityDays {
		add("validity_days", "must be between 1 and 3650")
	}
	if p.Price.Amount < 0 || p.Price.Amount > MaxMoneyAmount {
		add("price.amount", "must be between 0 and 1000000000000 minor units")
	}
	if !IsCurrency(p.Price.Currency) {
		add("price.currency", "must be an ISO 4217 code such as USD")
	}
	if p.APN != nil {
		errs = append(errs, p.APN.Validate(prefix+".apn")...)
	}
	if w := p.RefundWindowDays; w != nil && (*w < 0 || *w > MaxRefundWindowDays) {
		add("refund_window_days", "must be between 0 and 365")
	}
	return errs
}

// ESIMCatalog is an account's whole package list, active or not, in the order the admin
// listed them (packages added later come after the earlier ones). Version
// increases with every change and UpdatedAt is the time of the last one, so that
// conditional requests work as for the airport catalog; both are zero for an account
// whose packages were never set.
type ESIMCatalog struct {
	AccountID string         `json:"account_id"`
	Version   int64          `json:"version"`
	UpdatedAt time.Time      `json:"updated_at"`
	Packages  []*ESIMPackage `json:"packages"`
}

// PoolProfileStatus says whether a profile of the pool is still free.
type PoolProfileStatus string

const (
	// PoolAvailable: imported and not yet given to an order.
	PoolAvailable PoolProfileStatus = "Available"
	// PoolAssigned: given to exactly one order; it is now an ESIM and never returns.
	PoolAssigned PoolProfileStatus = "Assigned"
)

// PoolProfileStatuses lists every PoolProfileStatus.
var PoolProfileStatuses = []PoolProfileStatus{PoolAvailable, PoolAssigned}

// PoolProfile is one eSIM profile that an admin uploaded into an account's pool. The
// matching ID is a secret (with the SM-DP+ address it is the activation code), so the
// store only ever sees MatchingIDSealed: the esim service seals it before calling the
// store, with the ICCID as associated data, and opens it for the owner's reads. An
// ICCID is in at most one pool of all accounts.
type PoolProfile struct {
	ICCID            string
	AccountID        string
	SMDPAddress      string
	MatchingIDSealed []byte
	Status           PoolProfileStatus
	// OrderID is the order the profile went to; "" while Available.
	OrderID    string
	ImportedAt time.Time
}

// PoolCounts counts an account's pool profiles by status; ByStatus has every status,
// zero included.
type PoolCounts struct {
	Total    int                       `json:"total"`
	ByStatus map[PoolProfileStatus]int `json:"by_status"`
}

// ICCID rules (ITU-T E.118): 19 or 20 decimal digits, the last being the Luhn check
// digit of the others.
const (
	MinICCIDLen = 19
	MaxICCIDLen = 20
)

// IsICCID reports whether s is 19–20 ASCII digits with a valid Luhn check digit.
func IsICCID(s string) bool {
	if len(s) < MinICCIDLen || len(s) > MaxICCIDLen {
		return false
	}
	check := LuhnCheckDigit(s[:len(s)-1]) // 0 when the payload holds a non-digit
	return check != 0 && check == s[len(s)-1]
}

// LuhnCheckDigit returns the Luhn check digit ('0'–'9') to append to the decimal
// digits payload; it returns 0 when payload holds a non-digit.
func LuhnCheckDigit(payload string) byte {
	sum := 0
	double := true // the rightmost payload digit is doubled once the check digit is appended
	for i := len(payload) - 1; i >= 0; i-- {
		c := payload[i]
		if c < '0' || c > '9' {
			return 0
		}
		d := int(c - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}

// ActivationCode returns the GSMA SGP.22 activation code of a profile,
// "LPA:1$<SM-DP+ address>$<matching ID>", which is what the eSIM QR code encodes.
func ActivationCode(smdpAddress, matchingID string) string {
	return "LPA:1$" + smdpAddress + "$" + matchingID
}

// IsSMDPAddress reports whether s can be an SM-DP+ address in an activation code: a
// fully qualified host name (letters, digits, hyphens, at least one dot, at most 253
// characters), with no scheme, port or path.
func IsSMDPAddress(s string) bool {
	if len(s) == 0 || len(s) > 253 || !strings.Contains(s, ".") {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' || strings.ContainsFunc(label, notLDH) {
			return false
		}
	}
	return true
}

// IsMatchingID reports whether s can be a matching ID (SGP.22: upper-case alphanumerics
// and "-"; lower case is accepted too): 1–255 such characters.
func IsMatchingID(s string) bool {
	return len(s) >= 1 && len(s) <= 255 && !strings.ContainsFunc(s, notLDH)
}

// ESIMOrderStatus is the status of an order. Orders are all-or-nothing and synchronous,
// so a stored order is always Completed; the type leaves room for asynchronous partners.
type ESIMOrderStatus string

// ESIMOrderCompleted: every eSIM of the order was allocated and paid for.
const ESIMOrderCompleted ESIMOrderStatus = "Completed"

// Limits of an order.
const (
	MinESIMOrderQuantity = 1
	MaxESIMOrderQuantity = 50
	// MaxPartnerReferenceLen bounds the partner's own reference of an order.
	MaxPartnerReferenceLen = 128
)

// Idempotency operations of the eSIM writes; keys are scoped to the account and the
// operation, in the same records as create-booking.
const (
	OperationESIMOrder = "esim.order"
	OperationESIMTopUp = "esim.topup"
)

// ESIMOrder is a purchase of Quantity eSIMs of one package. UnitPrice is the package's
// price when ordered and Total is UnitPrice times Quantity, charged to the balance in
// that currency. ESIMs lists the eSIMs allocated to the order, by ICCID.
type ESIMOrder struct {
	ID               string          `json:"id"`
	Status           ESIMOrderStatus `json:"status"`
	PackageID        string          `json:"package_id"`
	Quantity         int             `json:"quantity"`
	PartnerReference string          `json:"partner_reference"`
	UnitPrice        Money           `json:"unit_price"`
	Total            Money           `json:"total"`
	ESIMs            []*ESIM         `json:"esims"`
	CreatedAt        time.Time       `json:"created_at"`

	AccountID string `json:"-"`
	// ClientID is the application that placed the order.
	ClientID string `json:"-"`
	// Livemode is false when a sandbox application or deployment placed the order
	// (see Event); its eSIMs take it over.
	Livemode bool `json:"-"`
}

// ICCIDs returns the ICCIDs of the order's eSIMs in order.
func (o *ESIMOrder) ICCIDs() []string {
	out := make([]string, len(o.ESIMs))
	for i, e := range o.ESIMs {
		out[i] = e.ICCID
	}
	return out
}

// TopUp adds a top-up package's data and validity to an existing eSIM, charged like an
// order. DataMB is nil when the package is unlimited. ESIM is the eSIM after the top-up.
type TopUp struct {
	ID           string    `json:"id"`
	ICCID        string    `json:"iccid"`
	PackageID    string    `json:"package_id"`
	DataMB       *int      `json:"data_mb"`
	ValidityDays int       `json:"validity_days"`
	Price        Money     `json:"price"`
	CreatedAt    time.Time `json:"created_at"`
	ESIM         *ESIM     `json:"esim"`

	AccountID string `json:"-"`
	ClientID  string `json:"-"`
}

// LedgerKind says why a ledger entry changed a balance.
type LedgerKind string

const (
	// LedgerCharge: an order or top-up was paid; the amount is negative.
	LedgerCharge LedgerKind = "charge"
	// LedgerCredit: an admin added prepaid funds; the amount is positive.
	LedgerCredit LedgerKind = "credit"
	// LedgerRefund: money given back, by an admin for an order or top-up, by the
	// cancellation of a confirmed booking, or by the cancel of an unused eSIM;
	// positive.
	LedgerRefund LedgerKind = "refund"
	// LedgerReservation: a priced booking was created; its price leaves the available
	// amount and joins the reserved one; negative.
	LedgerReservation LedgerKind = "reservation"
	// LedgerRelease: a booking's reservation ended (confirmed, expired or canceled
	// before confirm); its price returns to the available amount; positive.
	LedgerRelease LedgerKind = "release"
)

// LedgerKinds lists every LedgerKind.
var LedgerKinds = []LedgerKind{LedgerCharge, LedgerCredit, LedgerRefund, LedgerReservation, LedgerRelease}

// LedgerEntry is one change of an account's balance in one currency. Amount is signed
// (charges negative, credits and refunds positive) and BalanceAfter is the balance in
// Amount's currency right after the entry, in minor units: the available amount, not
// counting reservations. Reference is the order, top-up or booking id of a charge, the
// booking id of every booking line, the order or top-up id of the refund of a
// canceled eSIM, or what the admin gave for a credit. BookingID is the booking of a
// booking line (reservation, release, charge or refund of a booking), nil for every
// other line; ICCID is the eSIM of a refund line of its cancel (ESIMCancelStore), nil
// for every other line.
type LedgerEntry struct {
	ID           string     `json:"id"`
	Kind         LedgerKind `json:"kind"`
	Amount       Money      `json:"amount"`
	BalanceAfter int64      `json:"balance_after"`
	BookingID    *string    `json:"booking_id"`
	Reference    string     `json:"reference"`
	Description  string     `json:"description"`
	CreatedAt    time.Time  `json:"created_at"`
	ICCID        *string    `json:"iccid"`

	AccountID string `json:"-"`
}
