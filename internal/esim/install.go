package esim

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"

	"github.com/skygate/skygate"
	"github.com/skygate/skygate/internal/qr"
)

// Install links and the hosted install page.
//
// An install token is a bearer capability for one eSIM's install page: whoever holds
// the link sees the page, without logging in, so that a partner can hand it to the
// traveller. It is stateless: it carries the account id and the ICCID and an
// HMAC-SHA256 of both under the install-link key (seal.PurposeESIMInstallLink),
// truncated to 128 bits, base64url without padding:
//
//	version (1 byte, 1) | account id length (1 byte) | account id | ICCID (19–20 ASCII digits) | MAC (16 bytes)
//
// A UUID account id makes a token of 99 characters.
//
// Nothing is stored, so a link cannot be revoked on its own: rotating the master key
// revokes every link at once. The page reads the eSIM with the account-scoped store
// call, so a token names its own account's eSIM only, and it reveals the activation
// code only while the eSIM can still be installed (skygate.ESIM.Installable).

// installTokenVersion is the first byte of every install token.
const installTokenVersion byte = 1

// Sizes of an install token.
const (
	installMACSize = 16 // 128 bits of HMAC-SHA256
	// maxInstallAccountLen bounds the account id a token carries, in bytes (ids are
	// UUIDs, 36).
	maxInstallAccountLen = 64
	// MaxInstallTokenLen is the longest token that can be valid, in base64url
	// characters; anything longer is not decoded at all.
	MaxInstallTokenLen = (2 + maxInstallAccountLen + 20 + installMACSize + 2) / 3 * 4
)

// installMACDomain separates the MAC of an install token from any other use of the key.
const installMACDomain = "skygate/esim/install-link/v1\x00"

// InstallToken returns the install-page token of the account's eSIM iccid, or "" when
// the service has no install-link key, iccid is no ICCID or accountID is empty or
// longer than 64 bytes (ids are UUIDs).
func (s *Service) InstallToken(accountID, iccid string) string {
	if len(s.installKey) == 0 || accountID == "" || len(accountID) > maxInstallAccountLen || !skygate.IsICCID(iccid) {
		return ""
	}
	payload := make([]byte, 0, 2+len(accountID)+len(iccid)+installMACSize)
	payload = append(append(append(payload, installTokenVersion, byte(len(accountID))), accountID...), iccid...)
	return base64.RawURLEncoding.EncodeToString(append(payload, s.installMAC(payload)...))
}

// installMAC is the truncated HMAC-SHA256 of payload under the install-link key.
func (s *Service) installMAC(payload []byte) []byte {
	m := hmac.New(sha256.New, s.installKey)
	m.Write([]byte(installMACDomain))
	m.Write(payload)
	return m.Sum(nil)[:installMACSize]
}

// parseInstallToken returns the account id and ICCID that token carries, or false for
// anything malformed, too long, of another version or with a wrong MAC: the cases are
// deliberately not told apart. The MAC is compared in constant time.
func (s *Service) parseInstallToken(token string) (accountID, iccid string, ok bool) {
	if len(s.installKey) == 0 || len(token) > MaxInstallTokenLen {
		return "", "", false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) < 2+installMACSize || raw[0] != installTokenVersion {
		return "", "", false
	}
	payload, mac := raw[:len(raw)-installMACSize], raw[len(raw)-installMACSize:]
	if !hmac.Equal(mac, s.installMAC(payload)) {
		return "", "", false
	}
	n := int(payload[1])
	if n == 0 || 2+n > len(payload) {
		return "", "", false
	}
	accountID, iccid = string(payload[2:2+n]), string(payload[2+n:])
	if !skygate.IsICCID(iccid) {
		return "", "", false
	}
	return accountID, iccid, true
}

// installLinks fills the install links of e, an eSIM of the account, for its owner:
// e's ActivationCode must be revealed. Without an install-link key, or for an id that
// yields no token, nothing is filled.
func (s *Service) installLinks(accountID string, e *skygate.ESIM) {
	token := s.InstallToken(accountID, e.ICCID)
	if token == "" || e.ActivationCode == "" {
		return
	}
	e.InstallLinks = &skygate.ESIMInstall{
		LPA:        e.ActivationCode,
		IOSURL:     skygate.AppleInstallURL + url.QueryEscape(e.ActivationCode),
		AndroidURL: e.ActivationCode,
		PageURL:    s.publicURL + skygate.InstallPagePath + token,
	}
}

// InstallPage is what the hosted install page shows of an eSIM. While the eSIM is
// Installable, ESIM carries the activation code and install links and QR is the PNG of
// the code; after that ESIM has neither (MatchingID, ActivationCode and InstallLinks
// empty) and QR is nil, so a page can show the state only.
type InstallPage struct {
	ESIM        *skygate.ESIM
	Installable bool
	QR          []byte
}

// InstallPage returns the page of the eSIM that token names, its package in lang, or
// CodeNotFound for any token that is malformed, forged, of another key or names an
// eSIM its account does not have: the eSIM is read with the account-scoped
// Store.ESIM, so a token never reaches another account's eSIM.
func (s *Service) InstallPage(ctx context.Context, token, lang string) (*InstallPage, error) {
	accountID, iccid, ok := s.parseInstallToken(token)
	if !ok {
		return nil, notFoundESIM()
	}
	e, err := s.store.ESIM(ctx, accountID, iccid)
	if err != nil {
		return nil, err
	}
	if err := s.present(ctx, accountID, lang, e); err != nil {
		return nil, err
	}
	p := &InstallPage{ESIM: e, Installable: e.Installable()}
	if !p.Installable {
		e.MatchingID, e.ActivationCode, e.InstallLinks = "", "", nil
		return p, nil
	}
	if p.QR, err = qr.PNG(e.ActivationCode); err != nil {
		return nil, err
	}
	return p, nil
}
