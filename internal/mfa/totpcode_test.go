package mfa

import (
	"encoding/base32"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// RFC 6238 appendix B (SHA-1, seed "12345678901234567890"), truncated to
// the 6 digits authenticator apps show.
func TestMatchTOTPRFC6238Vectors(t *testing.T) {
	t.Parallel()
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte("12345678901234567890"))
	for _, v := range []struct {
		unix int64
		code string
	}{
		{59, "287082"}, {1111111109, "081804"}, {1111111111, "050471"}, {1234567890, "005924"},
		{2000000000, "279037"}, {20000000000, "353130"},
	} {
		at := time.Unix(v.unix, 0)
		step, ok, err := matchTOTP(secret, v.code, at)
		if err != nil || !ok || step != v.unix/30 {
			t.Errorf("t=%d code %s: step %d ok %v err %v", v.unix, v.code, step, ok, err)
		}
		// One step either way still matches (skew), reporting the code's
		// own step; two steps away does not.
		for _, d := range []int64{-1, 1} {
			if step, ok, _ := matchTOTP(secret, v.code, at.Add(time.Duration(d)*TOTPPeriod)); !ok || step != v.unix/30 {
				t.Errorf("t=%d shifted %d step: ok %v step %d", v.unix, d, ok, step)
			}
		}
		for _, d := range []int64{-2, 2} {
			if v.unix+d*30 < 0 {
				continue // before the epoch: no such step
			}
			if _, ok, _ := matchTOTP(secret, v.code, at.Add(time.Duration(d)*TOTPPeriod)); ok {
				t.Errorf("t=%d shifted %d steps still matches", v.unix, d)
			}
		}
	}
	if _, _, err := matchTOTP("not base32!", "123456", time.Unix(59, 0)); err == nil {
		t.Error("a broken secret did not fail")
	}
}

func TestNewTOTPKeyAndQR(t *testing.T) {
	t.Parallel()
	key, err := newTOTPKey("Acme & Co: Labs", "ada+mfa@acme.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(key.Secret()) != 32 || strings.ToUpper(key.Secret()) != key.Secret() {
		t.Fatalf("secret %q: want 32 upper-case base32 characters (160 bits)", key.Secret())
	}
	u, err := url.Parse(key.URL())
	if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("issuer") != "Acme & Co: Labs" ||
		u.Path != "/Acme & Co: Labs:ada+mfa@acme.test" || u.Query().Get("secret") != key.Secret() ||
		u.Query().Get("digits") != "6" || u.Query().Get("period") != "30" || u.Query().Get("algorithm") != "SHA1" {
		t.Fatalf("otpauth URL %q", key.URL())
	}
	qr, err := qrDataURL(key)
	if err != nil || !strings.HasPrefix(qr, "data:image/png;base64,iVBORw0KGgo") {
		t.Fatalf("qr: %.40s %v", qr, err)
	}
	if s, err := normalizeSecret(" jbsw y3dp ehpk 3pxp== "); err != nil || s != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("normalizeSecret = %q, %v", s, err)
	}
	for _, bad := range []string{"", "JBSW", "JBSWY3DP1", "not base32"} {
		if _, err := normalizeSecret(bad); err == nil {
			t.Errorf("normalizeSecret(%q) accepted", bad)
		}
	}
}

func TestRecoveryCodes(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^[a-km-np-z2-9]{4}-[a-km-np-z2-9]{4}-[a-km-np-z2-9]{4}$`)
	seen := map[string]bool{}
	for range 50 {
		for _, c := range newRecoveryCodes() {
			if !shape.MatchString(c) || strings.ContainsAny(c, "01lo") {
				t.Fatalf("code %q has the wrong shape", c)
			}
			if seen[c] {
				t.Fatalf("duplicate code %q", c)
			}
			seen[c] = true
		}
	}
	if len(newRecoveryCodes()) != RecoveryCodeCount {
		t.Fatal("wrong number of codes")
	}
	if got := normalizeRecoveryCode(" K7MQ-3xbe 9PTW\n"); got != "k7mq3xbe9ptw" {
		t.Fatalf("normalize = %q", got)
	}
}
