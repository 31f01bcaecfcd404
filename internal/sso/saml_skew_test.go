package sso_test

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/beevik/etree"

	"github.com/latchkey/latchkey/internal/apptest"
)

// skew is the clock skew the README promises for SAML validity windows.
const skew = 90 * time.Second

// setClock moves the server's fake clock to t.
func setClock(e *apptest.Env, t time.Time) { e.Clock.Advance(t.Sub(e.Clock.Now())) }

// samlWindows are the validity windows of an unencrypted response's
// assertion: Conditions and SubjectConfirmationData.
type samlWindows struct{ notBefore, notOnOrAfter, confirmBy time.Time }

func readWindows(t *testing.T, encoded string) samlWindows {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatal(err)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(raw); err != nil {
		t.Fatal(err)
	}
	at := func(path, attr string) time.Time {
		t.Helper()
		el := doc.FindElement(path)
		if el == nil {
			t.Fatalf("no %s in the response", path)
		}
		v, err := time.Parse(time.RFC3339, el.SelectAttrValue(attr, ""))
		if err != nil {
			t.Fatalf("%s/@%s: %v", path, attr, err)
		}
		return v
	}
	return samlWindows{notBefore: at("//Conditions", "NotBefore"), notOnOrAfter: at("//Conditions", "NotOnOrAfter"),
		confirmBy: at("//SubjectConfirmationData", "NotOnOrAfter")}
}

// TestSAMLClockSkewCrewjam: crewjam's responses as they come (a 90 s
// window from our AuthnRequest's IssueInstant, in both Conditions and
// SubjectConfirmationData), posted while our clock is up to the promised
// 90 s ahead of or behind the IdP's, log in; a step further is refused.
func TestSAMLClockSkewCrewjam(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		for _, tc := range []struct {
			name    string
			at      func(w samlWindows) time.Time
			refused string // the error type, "" when the login succeeds
		}{
			// crewjam's NotBefore is our AuthnRequest's IssueInstant.
			{"posted 120 s after issue", func(w samlWindows) time.Time { return w.notBefore.Add(120 * time.Second) }, ""},
			{"posted just before the first window's end plus the skew", func(w samlWindows) time.Time {
				return earlier(w.notOnOrAfter, w.confirmBy).Add(skew - time.Millisecond)
			}, ""},
			{"posted at the end of the confirmation window plus the skew", func(w samlWindows) time.Time {
				return w.confirmBy.Add(skew)
			}, "expired_saml_response"},
			{"our clock 90 s behind", func(w samlWindows) time.Time { return w.notBefore.Add(-skew) }, ""},
			{"our clock 91 s behind", func(w samlWindows) time.Time { return w.notBefore.Add(-skew - time.Second) }, "not_yet_valid_saml_response"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// crewjam checks our AuthnRequest's IssueInstant against its
				// real clock: start at the real time.
				setClock(e, time.Now())
				acs, form := s.idp.follow(s.start(nil))
				setClock(e, tc.at(readWindows(t, form.Get("SAMLResponse"))))
				res := s.post(acs, form)
				if tc.refused == "" {
					tokenFrom(t, res)
				} else {
					wantPage(t, res, 400, tc.refused)
				}
			})
		}
	})
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestSAMLClockSkewEachWindow: each validity window on its own, with the
// other comfortably open, at the edges of the skew. The IdP signs the
// assertion with the edited times (and the response around it) again.
func TestSAMLClockSkewEachWindow(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		for _, tc := range []struct {
			name                string
			notBefore, notAfter time.Duration // Conditions, from our clock
			confirmBy           time.Duration // SubjectConfirmationData/@NotOnOrAfter
			refused             string        // the error type, "" when the login succeeds
		}{
			{"confirmation ended 89 s ago", -time.Minute, time.Minute, -89 * time.Second, ""},
			{"confirmation ended 90 s ago", -time.Minute, time.Minute, -skew, "expired_saml_response"},
			{"confirmation ended 10 minutes ago", -time.Minute, time.Minute, -10 * time.Minute, "expired_saml_response"},
			{"conditions ended 89 s ago", -time.Minute, -89 * time.Second, time.Minute, ""},
			{"conditions ended 90 s ago", -time.Minute, -skew, time.Minute, "expired_saml_response"},
			{"conditions begin in 90 s", skew, 5 * time.Minute, 5 * time.Minute, ""},
			{"conditions begin in 91 s", skew + time.Second, 5 * time.Minute, 5 * time.Minute, "not_yet_valid_saml_response"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				setClock(e, time.Now())
				acs, form := s.idp.follow(s.start(nil))
				now := e.Clock.Now()
				stamp := func(d time.Duration) string { return now.Add(d).UTC().Format(time.RFC3339Nano) }
				form.Set("SAMLResponse", s.idp.resignAssertion(form.Get("SAMLResponse"), func(a *etree.Element) {
					cond, scd := a.FindElement(".//Conditions"), a.FindElement(".//SubjectConfirmationData")
					if cond == nil || scd == nil {
						t.Fatal("no Conditions or SubjectConfirmationData in the assertion")
					}
					cond.CreateAttr("NotBefore", stamp(tc.notBefore))
					cond.CreateAttr("NotOnOrAfter", stamp(tc.notAfter))
					scd.CreateAttr("NotOnOrAfter", stamp(tc.confirmBy))
				}))
				res := s.post(acs, form)
				if tc.refused == "" {
					tokenFrom(t, res)
				} else {
					wantPage(t, res, 400, tc.refused)
				}
			})
		}
	})
}

// TestSAMLClockSkewLeavesCertificatesExact: the skew widens the
// assertion's windows only. A verification certificate is valid exactly
// from its NotBefore to its NotAfter by our clock: not 30 s after it
// expired, and from the moment it begins.
func TestSAMLClockSkewLeavesCertificatesExact(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		register := func(pem string) {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
				map[string]any{"x509_certificate": pem}), 200, "")
		}

		t.Run("expired 30 s ago", func(t *testing.T) {
			setClock(e, time.Now())
			now := e.Clock.Now()
			register(s.idp.rotate(now.Add(-time.Hour), now.Add(30*time.Second)))
			acs, form := s.idp.follow(s.start(nil))
			// Within the assertion's own window; past the certificate's.
			setClock(e, now.Add(time.Minute))
			wantPage(t, s.post(acs, form), 400, "invalid_signature_saml_response")
		})
		t.Run("issued 30 s ago", func(t *testing.T) {
			setClock(e, time.Now())
			now := e.Clock.Now()
			register(s.idp.rotate(now.Add(-30*time.Second), now.Add(time.Hour)))
			acs, form := s.idp.follow(s.start(nil))
			tokenFrom(t, s.post(acs, form))
		})
	})
}
