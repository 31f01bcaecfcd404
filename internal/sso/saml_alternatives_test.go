package sso_test

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/beevik/etree"

	"github.com/latchkey/latchkey/internal/apptest"
)

// alternative_audience_uri is accepted as an assertion's audience beside
// the connection's own audience_uri, exactly: both stay valid, anything
// else is refused, and without the setting only audience_uri is.
func TestSAMLAlternativeAudience(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		const legacy = "https://legacy-sp.example.com/saml/metadata"
		addressedTo := func(audience string) apptest.Resp {
			t.Helper()
			s.idp.audience = audience
			defer func() { s.idp.audience = "" }()
			return s.post(s.idp.follow(s.start(nil)))
		}

		wantPage(t, addressedTo(legacy), 400, "invalid_audience_saml_response")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"alternative_audience_uri": legacy}), 200, "")
		tokenFrom(t, addressedTo(legacy))
		tokenFrom(t, addressedTo("")) // audience_uri itself
		wantPage(t, addressedTo(legacy+"/"), 400, "invalid_audience_saml_response")
		wantPage(t, addressedTo("https://other-sp.example/metadata"), 400, "invalid_audience_saml_response")
	})
}

// alternative_acs_url is the AssertionConsumerServiceURL of the
// connection's AuthnRequests, and a response addressed to it (Destination
// and Recipient; the customer proxies that URL here) logs in, as one
// addressed to the connection's own ACS URL still does. A response
// addressed elsewhere, or to the alternative URL once it is cleared, is
// refused; the setting must be an http(s) URL.
func TestSAMLAlternativeACSURL(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		path := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID
		const legacy = "https://legacy.example.com/saml/acs"
		ours := e.Srv.URL + "/v1/b2b/sso/callback/" + s.connID
		// readdress makes the IdP's response one addressed to url.
		readdress := func(encoded, to string) string {
			return s.idp.resignAssertion(encoded, func(a *etree.Element) {
				scd := a.FindElement(".//SubjectConfirmationData")
				if scd == nil {
					t.Fatal("no SubjectConfirmationData in the assertion")
				}
				scd.CreateAttr("Recipient", to)
				a.Parent().CreateAttr("Destination", to)
			})
		}
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"alternative_acs_url": "not a url"}), 400, "invalid_request")
		r := e.Backend(http.MethodPut, path, map[string]any{"alternative_acs_url": legacy})
		apptest.Want(t, r, 200, "")
		if c := r.Body["connection"].(map[string]any); c["alternative_acs_url"] != legacy || c["acs_url"] != ours {
			t.Fatalf("connection: %s", r.Raw)
		}
		s.idp.extraACS = legacy

		// The AuthnRequest names the alternative URL, and the IdP answers
		// there; the proxied post logs in.
		start := s.start(nil)
		if !strings.Contains(samlRequestOf(t, start), `AssertionConsumerServiceURL="`+legacy+`"`) {
			t.Fatalf("the AuthnRequest does not name %s", legacy)
		}
		acs, form := s.idp.follow(start)
		if acs != legacy {
			t.Fatalf("the IdP posts to %s, want %s", acs, legacy)
		}
		raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
		if !strings.Contains(string(raw), `Destination="`+legacy+`"`) || !strings.Contains(string(raw), `Recipient="`+legacy+`"`) {
			t.Fatalf("the response is not addressed to %s: %s", legacy, raw)
		}
		tokenFrom(t, s.post(ours, form))

		// Addressed to our own ACS URL: still valid.
		_, form = s.idp.follow(s.start(nil))
		form.Set("SAMLResponse", readdress(form.Get("SAMLResponse"), ours))
		tokenFrom(t, s.post(ours, form))
		// Addressed elsewhere: refused.
		_, form = s.idp.follow(s.start(nil))
		form.Set("SAMLResponse", readdress(form.Get("SAMLResponse"), "https://elsewhere.example.com/acs"))
		wantPage(t, s.post(ours, form), 400, "invalid_saml_response")

		// Cleared, the alternative URL is just another address.
		_, form = s.idp.follow(s.start(nil))
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"alternative_acs_url": ""}), 200, "")
		wantPage(t, s.post(ours, form), 400, "invalid_saml_response")
	})
}

// samlRequestOf is the AuthnRequest XML of an HTTP-Redirect start URL.
func samlRequestOf(t *testing.T, location string) string {
	t.Helper()
	u, err := url.Parse(location)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(u.Query().Get("SAMLRequest"))
	if err != nil {
		t.Fatal(err)
	}
	xml, err := io.ReadAll(flate.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return string(xml)
}
