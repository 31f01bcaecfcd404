package mfa

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"image/png"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
)

// RFC 6238 parameters every authenticator app understands: SHA-1, 6
// digits, 30-second steps. One step of skew either way tolerates a phone
// clock that is up to half a minute off (and a code typed as it rolls
// over) without widening the guessing window much.
const (
	TOTPPeriod = 30 * time.Second
	TOTPSkew   = 1
	// qrSize is the QR image's side in pixels: large enough to scan from a
	// laptop screen, small enough for a data URL.
	qrSize = 256
)

var totpOpts = hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPStep is the RFC 6238 time step containing t.
func TOTPStep(t time.Time) int64 { return t.Unix() / int64(TOTPPeriod/time.Second) }

// newTOTPKey makes a fresh 160-bit secret with its otpauth:// URL; issuer
// and account are what the authenticator app shows. The URL is built here
// rather than by totp.Generate, which leaves '&' and ':' unescaped, so an
// organization named "Smith & Sons" would corrupt the URL (and the QR).
func newTOTPKey(issuer, account string) (*otp.Key, error) {
	raw := make([]byte, 20)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("mfa: totp secret: %w", err)
	}
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw)
	// %20 rather than '+' for spaces: some authenticator apps show a '+'.
	esc := func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
	u := "otpauth://totp/" + esc(issuer) + ":" + esc(account) + "?secret=" + secret + "&issuer=" + esc(issuer) +
		"&algorithm=SHA1&digits=6&period=" + strconv.Itoa(int(TOTPPeriod/time.Second))
	key, err := otp.NewKeyFromURL(u)
	if err != nil {
		return nil, fmt.Errorf("mfa: totp key: %w", err)
	}
	return key, nil
}

// qrDataURL renders the key's otpauth:// URL as a PNG QR code data URL,
// which the widget shows directly as an image source.
func qrDataURL(key *otp.Key) (string, error) {
	img, err := key.Image(qrSize, qrSize)
	if err != nil {
		return "", fmt.Errorf("mfa: qr image: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", fmt.Errorf("mfa: qr png: %w", err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// matchTOTP finds the time step within the skew of now whose code equals
// code. Every candidate is computed and compared in constant time, so the
// answer's timing does not tell which step (if any) matched. now comes
// from the injected clock, never the wall clock.
func matchTOTP(secret, code string, now time.Time) (step int64, ok bool, err error) {
	cur := TOTPStep(now)
	for d := int64(-TOTPSkew); d <= TOTPSkew; d++ {
		s := cur + d
		want, err := hotp.GenerateCodeCustom(secret, uint64(s), totpOpts)
		if err != nil {
			return 0, false, fmt.Errorf("mfa: totp code: %w", err)
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && !ok {
			step, ok = s, true
		}
	}
	return step, ok, nil
}

// normalizeSecret accepts a base32 secret as people write it (any case,
// spaces, padding) and returns the canonical upper-case unpadded form; it
// must decode to at least 80 bits (RFC 4226's minimum).
func normalizeSecret(s string) (string, error) {
	s = strings.ToUpper(strings.Join(strings.Fields(s), ""))
	s = strings.TrimRight(s, "=")
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	if err != nil || len(b) < 10 {
		return "", fmt.Errorf("mfa: secret is not base32 of at least 80 bits")
	}
	return s, nil
}
