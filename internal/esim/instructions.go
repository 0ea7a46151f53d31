package esim

import (
	"context"
	"strings"

	"github.com/skygate/skygate"
)

// Instructions tell a traveller how to install an eSIM and use it for data abroad,
// for the eSIM's owner: the steps on an iPhone and on an Android phone, in one
// language, and the access point the phone needs.
type Instructions struct {
	ICCID   string      `json:"iccid"`
	IOS     Steps       `json:"ios"`
	Android Steps       `json:"android"`
	APN     APNSettings `json:"apn"`
}

// Steps are the steps on one platform, in order, one short sentence each.
type Steps struct {
	Steps []string `json:"steps"`
}

// APNSettings say which access point an eSIM needs. Automatic is true, and the other
// fields nil, when its package names no APN (the network sets it); otherwise Name is
// the package's APN and Username and Password its credentials, nil when it has none.
type APNSettings struct {
	Automatic bool    `json:"automatic"`
	Name      *string `json:"name"`
	Username  *string `json:"username"`
	Password  *string `json:"password"`
}

// Instructions answers GET /v2/b2b/esims/{iccid}/instructions: the install and setup
// steps of the account's eSIM in lang (one of skygate.Languages; anything else is en)
// with the APN of its package. The manual steps name the SM-DP+ address and matching
// ID, so this is an owner's read like the activation code. An eSIM of any status but
// Canceled is answered; a Canceled eSIM, whose activation code is never shown again,
// is CodeInvalidESIMStatus; an unknown ICCID, another account's, or a path value that
// cannot be an ICCID is CodeNotFound.
func (s *Service) Instructions(ctx context.Context, accountID, iccid, lang string) (*Instructions, error) {
	if !skygate.IsICCID(iccid) {
		return nil, notFoundESIM()
	}
	e, err := s.store.ESIM(ctx, accountID, iccid)
	if err != nil {
		return nil, err
	}
	if err := revealable(e); err != nil {
		return nil, err
	}
	if err := s.reveal(e); err != nil {
		return nil, err
	}
	pkg, err := s.store.ESIMPackage(ctx, accountID, e.PackageID)
	if err != nil {
		return nil, err
	}
	return NewInstructions(e, pkg.APN, skygate.Language(lang)), nil
}

// NewInstructions returns the instructions of e, whose matching ID is revealed, for a
// package with apn (nil: automatic) in lang, one of skygate.Languages.
func NewInstructions(e *skygate.ESIM, apn *skygate.APN, lang string) *Instructions {
	fill := []string{"{smdp}", e.SMDPAddress, "{matching_id}", e.MatchingID, "{lpa}", e.ActivationCode}
	out := &Instructions{ICCID: e.ICCID, APN: APNSettings{Automatic: true}}
	if apn != nil {
		out.APN = APNSettings{Name: &apn.Name, Username: nonEmpty(apn.Username), Password: nonEmpty(apn.Password)}
		fill = append(fill, "{apn}", apn.Name, "{username}", apn.Username, "{password}", apn.Password)
	}
	r := strings.NewReplacer(fill...)
	steps := func(texts []skygate.LocalizedText, apnStep skygate.LocalizedText) Steps {
		out := make([]string, 0, len(texts)+1)
		for _, t := range texts {
			out = append(out, r.Replace(t.In(lang)))
		}
		if apn != nil {
			step := apnStep.In(lang)
			if apn.Username != "" {
				step += " " + apnUsername.In(lang)
			}
			if apn.Password != "" {
				step += " " + apnPassword.In(lang)
			}
			out = append(out, r.Replace(step))
		}
		return Steps{Steps: out}
	}
	out.IOS = steps(iosSteps, iosAPN)
	out.Android = steps(androidSteps, androidAPN)
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
