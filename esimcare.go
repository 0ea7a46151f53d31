package skygate

// This file holds an eSIM after its sale: the state of its profile as the SM-DP+
// reports it, the install links, the cancel of an unused eSIM with its refund, the
// expiry warnings, the account's usage thresholds and the eSIM's history.

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProfileState is the state of an eSIM's profile as the SM-DP+ reports it (GSMA
// SGP.22), beside the service status of the eSIM.
type ProfileState string

const (
	// ProfileReleased: the profile is ready for download and was never downloaded.
	ProfileReleased ProfileState = "Released"
	// ProfileDownloaded: a device downloaded the profile.
	ProfileDownloaded ProfileState = "Downloaded"
	// ProfileInstalled: the profile is installed on the device.
	ProfileInstalled ProfileState = "Installed"
	// ProfileEnabled: the profile is the device's active eSIM profile.
	ProfileEnabled ProfileState = "Enabled"
	// ProfileDisabled: the profile is installed but switched off.
	ProfileDisabled ProfileState = "Disabled"
	// ProfileDeleted: the profile was deleted from the device; it cannot come back.
	ProfileDeleted ProfileState = "Deleted"
)

// ProfileStates lists every ProfileState in the order of a profile's life.
var ProfileStates = []ProfileState{ProfileReleased, ProfileDownloaded, ProfileInstalled, ProfileEnabled, ProfileDisabled, ProfileDeleted}

// IsValid reports whether p is one of ProfileStates.
func (p ProfileState) IsValid() bool { return slices.Contains(ProfileStates, p) }

// profileTransitions is the profile's machine. Reports of the SM-DP+ may skip steps
// forward (a download and install reported once), so each state lists every state
// after it that a report may name:
//
//	Released   --> Downloaded, Installed, Enabled
//	Downloaded --> Installed, Enabled, Deleted
//	Installed  --> Enabled, Disabled, Deleted
//	Enabled    --> Disabled, Deleted
//	Disabled   --> Enabled, Deleted
//	Deleted    (final)
var profileTransitions = map[ProfileState][]ProfileState{
	ProfileReleased:   {ProfileDownloaded, ProfileInstalled, ProfileEnabled},
	ProfileDownloaded: {ProfileInstalled, ProfileEnabled, ProfileDeleted},
	ProfileInstalled:  {ProfileEnabled, ProfileDisabled, ProfileDeleted},
	ProfileEnabled:    {ProfileDisabled, ProfileDeleted},
	ProfileDisabled:   {ProfileEnabled, ProfileDeleted},
}

// CanProfileTransition reports whether a profile may move from one state to another.
func CanProfileTransition(from, to ProfileState) bool {
	return slices.Contains(profileTransitions[from], to)
}

// onDevice reports whether a profile in state p is installed on a device. Deleted is
// not: a profile deleted after its download never reached the device, and one deleted
// later installed its eSIM when it got there.
func (p ProfileState) onDevice() bool {
	return p == ProfileInstalled || p == ProfileEnabled || p == ProfileDisabled
}

// SetProfileState records the SM-DP+'s report that the profile is now in state to, at
// now. The same state again changes nothing. A state the machine does not allow from
// the current one, and any report on a Canceled eSIM, is CodeInvalidESIMStatus; an
// unknown state CodeValidation. A profile that reaches the device (Installed, Enabled
// or Disabled) makes an Assigned eSIM Installed, with InstalledAt now.
func (e *ESIM) SetProfileState(to ProfileState, now time.Time) error {
	if !to.IsValid() {
		return ValidationError(FieldError{Field: "state", Message: "must be one of Released, Downloaded, Installed, Enabled, Disabled, Deleted"})
	}
	if e.Status == ESIMCanceled {
		return Errorf(CodeInvalidESIMStatus, "the eSIM is Canceled; its profile cannot change")
	}
	if to == e.ProfileState {
		return nil
	}
	if !CanProfileTransition(e.ProfileState, to) {
		return Errorf(CodeInvalidESIMStatus, "the profile is %s; it cannot become %s", e.ProfileState, to)
	}
	e.ProfileState = to
	if to.onDevice() && e.Status == ESIMAssigned {
		return e.Install(now)
	}
	return nil
}

// advanceProfile moves the profile forward to state to when the machine allows it,
// and leaves it otherwise: the service status moved (install, activation), so the
// device must hold the profile at least in that state.
func (e *ESIM) advanceProfile(to ProfileState) {
	if CanProfileTransition(e.ProfileState, to) {
		e.ProfileState = to
	}
}

// ESIMInstall is how a traveller installs an eSIM, for its owner's reads: LPA is the
// activation code, IOSURL Apple's universal install link, AndroidURL the "LPA:" string
// Android's eSIM setup takes when it is entered or scanned (not a link: no browser
// opens that setup with it), and PageURL the hosted install page (InstallPagePath).
type ESIMInstall struct {
	LPA        string `json:"lpa"`
	IOSURL     string `json:"ios_url"`
	AndroidURL string `json:"android_url"`
	PageURL    string `json:"page_url"`
}

// AppleInstallURL is the prefix of Apple's universal eSIM install link; the
// URL-escaped activation code follows it.
const AppleInstallURL = "https://esimsetup.apple.com/esim_qrcode_provisioning?carddata="

// InstallPagePath is the path of the hosted install page of the eSIM whose install
// token follows it.
const InstallPagePath = "/esim/install/"

// Installable reports whether e can still be installed from its activation code: it
// is Assigned and its profile was never downloaded (Released). The hosted install page
// shows the code, the buttons and the QR code only then.
func (e *ESIM) Installable() bool {
	return e.Status == ESIMAssigned && e.ProfileState == ProfileReleased
}

// APN is the access point an eSIM's package needs, set by admins with the package.
// Username and Password are empty when the network needs none.
type APN struct {
	Name     string `json:"name"`
	Username string `json:"username"`
	Password string `json:"password"`
}

// Limits of an APN.
const (
	MaxAPNNameLen       = 100
	MaxAPNCredentialLen = 64
)

// Validate returns the problems of a, its field names starting with prefix.
func (a *APN) Validate(prefix string) []FieldError {
	var errs []FieldError
	name := strings.TrimSpace(a.Name)
	switch {
	case name == "":
		errs = append(errs, FieldError{Field: prefix + ".name", Message: "is required"})
	case len(a.Name) > MaxAPNNameLen || name != a.Name || strings.ContainsFunc(a.Name, notAPNChar):
		errs = append(errs, FieldError{Field: prefix + ".name", Message: "must be 1 to 100 letters, digits, dots, hyphens or underscores"})
	}
	for field, v := range map[string]string{"username": a.Username, "password": a.Password} {
		if len(v) > MaxAPNCredentialLen || strings.ContainsFunc(v, notPrintableASCII) {
			errs = append(errs, FieldError{Field: prefix + "." + field, Message: "must be at most 64 printable ASCII characters"})
		}
	}
	slices.SortFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
	return errs
}

func notAPNChar(r rune) bool { return notLDH(r) && r != '.' && r != '_' }

func notPrintableASCII(r rune) bool { return r < 0x20 || r > 0x7e }

// Refund windows of packages: an unused eSIM may be canceled and refunded until
// RefundWindowDays after its order; 0 means never. The window is fixed when the eSIM
// is sold (ESIM.RefundUntil); a package's window applies to its later sales only.
const (
	DefaultRefundWindowDays = 30
	MaxRefundWindowDays     = 365
)

// RefundableUntil returns the end of the refund window of an eSIM ordered at ordered
// from a package with window days, or nil when the package gives no refunds.
func RefundableUntil(ordered time.Time, window int) *time.Time {
	if window <= 0 {
		return nil
	}
	return new(ordered.AddDate(0, 0, window))
}

// Cancel cancels an unused eSIM at now for a refund: Assigned with its profile never
// downloaded (Released) → Canceled, CanceledAt now. The refund window is the one it
// was sold with: at or after RefundUntil, or without one (nil), it is
// CodeRefundWindowClosed. A Canceled eSIM stays as it is and Cancel returns nil, so a
// repeated cancel answers the same eSIM; any other status or a downloaded profile is
// CodeInvalidESIMStatus. The refund itself is the store's (ESIMCancelStore).
func (e *ESIM) Cancel(now time.Time) error {
	if e.Status == ESIMCanceled {
		return nil
	}
	if e.Status != ESIMAssigned || e.ProfileState != ProfileReleased {
		return Errorf(CodeInvalidESIMStatus, "the eSIM is %s and its profile %s; only an eSIM never installed can be canceled", e.Status, e.ProfileState)
	}
	if e.RefundUntil == nil || !now.Before(*e.RefundUntil) {
		return Errorf(CodeRefundWindowClosed, "the eSIM's refund window has ended")
	}
	if err := e.setStatus(ESIMCanceled, "cancel"); err != nil {
		return err
	}
	e.CanceledAt = &now
	return nil
}

// ESIMExpiryWarnings are the days before an eSIM's expiry at which esim.expiring is
// sent, once each per validity period (a top-up that moves ExpiresAt starts a new
// one), most distant first.
var ESIMExpiryWarnings = []int{3, 1}

// DueExpiryWarning returns the expiry warning due for e at now: the fewest days of
// ESIMExpiryWarnings whose moment (ExpiresAt minus the days) has come, if it is fewer
// than ExpiryWarned (the last one sent this period, 0 for none). A warning that was
// missed (the worker was down, or the validity was shorter) is skipped for the more
// urgent one. Only an Active or Depleted eSIM whose validity has not ended is warned;
// ok is false when none is due.
func (e *ESIM) DueExpiryWarning(now time.Time) (days int, ok bool) {
	if e.ExpiresAt == nil || !now.Before(*e.ExpiresAt) || (e.Status != ESIMActive && e.Status != ESIMDepleted) {
		return 0, false
	}
	for _, d := range ESIMExpiryWarnings {
		if now.Before(e.ExpiresAt.Add(-time.Duration(d) * 24 * time.Hour)) {
			continue
		}
		if e.ExpiryWarned == 0 || d < e.ExpiryWarned {
			days, ok = d, true
		}
	}
	return days, ok
}

// WarnExpiry records that the expiry warning of days (DueExpiryWarning) was sent.
func (e *ESIM) WarnExpiry(days int) { e.ExpiryWarned = days }

// ESIMSettings are an account's eSIM settings. UsageThresholds are the percentages of
// the data allowance whose crossing sends esim.usage.threshold, ascending, each from
// 1 to 100, at most MaxUsageThresholds; DefaultUsageThresholds for an account that
// never set them.
type ESIMSettings struct {
	UsageThresholds []int `json:"usage_thresholds"`
}

// DefaultUsageThresholds are the usage thresholds of an account that set none.
var DefaultUsageThresholds = []int{80, 100}

// MaxUsageThresholds bounds the length of ESIMSettings.UsageThresholds.
const MaxUsageThresholds = 10

// Validate returns the problems of s as a partner sends it.
func (s *ESIMSettings) Validate() []FieldError {
	var errs []FieldError
	if s.UsageThresholds == nil {
		return []FieldError{{Field: "usage_thresholds", Message: "is required"}}
	}
	if len(s.UsageThresholds) > MaxUsageThresholds {
		errs = append(errs, FieldError{Field: "usage_thresholds", Message: "must list at most 10 thresholds"})
	}
	for i, t := range s.UsageThresholds {
		f := "usage_thresholds[" + strconv.Itoa(i) + "]"
		switch {
		case t < 1 || t > 100:
			errs = append(errs, FieldError{Field: f, Message: "must be a percentage from 1 to 100"})
		case i > 0 && t <= s.UsageThresholds[i-1]:
			errs = append(errs, FieldError{Field: f, Message: "must be greater than the threshold before it"})
		}
	}
	return errs
}

// ESIMHistoryKind says what an entry of an eSIM's history records.
type ESIMHistoryKind string

const (
	// HistoryOrdered: the eSIM was sold in an order (OrderID, PackageID, Price: the
	// unit price).
	HistoryOrdered ESIMHistoryKind = "ordered"
	// HistoryToppedUp: a top-up was bought (TopUpID, PackageID, Price).
	HistoryToppedUp ESIMHistoryKind = "topped_up"
	// HistoryStatusChanged: the service status changed (Status, PreviousStatus).
	HistoryStatusChanged ESIMHistoryKind = "status_changed"
	// HistoryProfileChanged: the profile's state changed (ProfileState,
	// PreviousProfileState).
	HistoryProfileChanged ESIMHistoryKind = "profile_changed"
	// HistoryRefunded: money paid for the eSIM went back to the balance on its cancel
	// (Price: the amount; LedgerEntryID: its ledger line; OrderID or TopUpID: what
	// was paid).
	HistoryRefunded ESIMHistoryKind = "refunded"
)

// ESIMHistoryEntry is one entry of an eSIM's history; the fields beside At and Kind
// are those its kind names, the others empty and absent from the JSON.
type ESIMHistoryEntry struct {
	At                   time.Time       `json:"at"`
	Kind                 ESIMHistoryKind `json:"kind"`
	OrderID              string          `json:"order_id,omitempty"`
	TopUpID              string          `json:"top_up_id,omitempty"`
	PackageID            string          `json:"package_id,omitempty"`
	Price                *Money          `json:"price,omitempty"`
	LedgerEntryID        string          `json:"ledger_entry_id,omitempty"`
	Status               ESIMStatus      `json:"status,omitempty"`
	PreviousStatus       ESIMStatus      `json:"previous_status,omitempty"`
	ProfileState         ProfileState    `json:"profile_state,omitempty"`
	PreviousProfileState ProfileState    `json:"previous_profile_state,omitempty"`
}

// ESIMChangeHistory returns the history entries of a change of an eSIM from before to
// after at: the profile's change, then the status's, each when it changed. The store
// writes them in the change's transaction.
func ESIMChangeHistory(before, after *ESIM, at time.Time) []*ESIMHistoryEntry {
	var out []*ESIMHistoryEntry
	if before.ProfileState != after.ProfileState {
		out = append(out, &ESIMHistoryEntry{At: at, Kind: HistoryProfileChanged,
			ProfileState: after.ProfileState, PreviousProfileState: before.ProfileState})
	}
	if before.Status != after.Status {
		out = append(out, &ESIMHistoryEntry{At: at, Kind: HistoryStatusChanged,
			Status: after.Status, PreviousStatus: before.Status})
	}
	return out
}

// Event types of an eSIM after its sale.
const (
	EventESIMProfileChanged = "esim.profile.changed"
	EventESIMExpiring       = "esim.expiring"
)

// ESIMProfileChangedData is the data of esim.profile.changed.
type ESIMProfileChangedData struct {
	ICCID                string       `json:"iccid"`
	OrderID              string       `json:"order_id"`
	ProfileState         ProfileState `json:"profile_state"`
	PreviousProfileState ProfileState `json:"previous_profile_state"`
}

// ESIMExpiringData is the data of esim.expiring: the eSIM's validity ends at
// ExpiresAt, DaysLeft (3 or 1) days after the warning's moment.
type ESIMExpiringData struct {
	ICCID     string    `json:"iccid"`
	OrderID   string    `json:"order_id"`
	ExpiresAt time.Time `json:"expires_at"`
	DaysLeft  int       `json:"days_left"`
}

// ESIMExpiringEvent returns esim.expiring for e, warned days before its expiry, at
// now, with the eSIM's ordering key.
func ESIMExpiringEvent(e *ESIM, days int, now time.Time) (*Event, error) {
	ev, err := NewEvent(e.AccountID, EventESIMExpiring, e.Livemode, ESIMExpiringData{
		ICCID: e.ICCID, OrderID: e.OrderID, ExpiresAt: *e.ExpiresAt, DaysLeft: days,
	}, now)
	if err != nil {
		return nil, err
	}
	ev.OrderingKey = ESIMOrderingKey(e.ICCID)
	return ev, nil
}
