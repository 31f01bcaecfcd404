package sso_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"

	"github.com/latchkey/latchkey/internal/apptest"
)

// samlEnv is a server, an organization with a SAML connection to a crewjam
// IdP, and helpers to walk a login.
type samlEnv struct {
	*apptest.Env
	idp    *samlIdP
	orgID  string
	connID string
}

func newSAMLEnv(t *testing.T, e *apptest.Env, orgFields map[string]any) *samlEnv {
	t.Helper()
	// crewjam stamps and checks times with the real clock.
	e.Clock.Advance(time.Until(e.Clock.Now()) * -1)
	s := &samlEnv{Env: e, idp: newSAMLIdP(t)}
	s.orgID = e.CreateOrg("acme", "NOT_ALLOWED", orgFields)
	r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+s.orgID, map[string]any{"display_name": "Acme Okta", "identity_provider": "okta"})
	apptest.Want(t, r, 200, "")
	conn := r.Body["connection"].(map[string]any)
	if conn["status"] != "pending" {
		t.Fatalf("new connection: %v", conn)
	}
	s.connID = conn["connection_id"].(string)
	r = e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
		"idp_entity_id": s.idp.idp.MetadataURL.String(), "idp_sso_url": s.idp.idp.SSOURL.String(),
		"x509_certificate": s.idp.certPEM(), "attribute_mapping": map[string]any{"email": "mail", "first_name": "givenName",
			"last_name": "sn"}})
	apptest.Want(t, r, 200, "")
	if st := r.Body["connection"].(map[string]any)["status"]; st != "active" {
		t.Fatalf("configured connection: %s", r.Raw)
	}
	return s
}

// start begins a login at our start route and returns the IdP URL.
func (s *samlEnv) start(extra url.Values) string {
	s.T.Helper()
	q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
	for k, v := range extra {
		q[k] = v
	}
	r := s.Get("/v1/public/sso/start?" + q.Encode())
	if r.Status != http.StatusFound {
		s.T.Fatalf("start: %d %s", r.Status, r.Raw)
	}
	return r.Header.Get("Location")
}

// post sends the IdP's form to our ACS.
func (s *samlEnv) post(acs string, form url.Values) apptest.Resp {
	s.T.Helper()
	return s.Do(http.MethodPost, acs, form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, "", "")
}

// tokenFrom reads the SSO token of a redirect to the customer's page.
func tokenFrom(t *testing.T, r apptest.Resp) string {
	t.Helper()
	if r.Status != http.StatusFound {
		t.Fatalf("callback: %d %s", r.Status, r.Raw)
	}
	return apptest.LinkToken(t, r.Header.Get("Location"), "", "sso")
}

func wantPage(t *testing.T, r apptest.Resp, status int, errType string) {
	t.Helper()
	if r.Status != status || r.Header.Get("X-Latchkey-Error-Type") != errType || !strings.Contains(string(r.Raw), errType) {
		t.Fatalf("got %d %q, want %d %q: %s", r.Status, r.Header.Get("X-Latchkey-Error-Type"), status, errType, r.Raw)
	}
	// The house page policy (httpapi.SetPageCSP): no inline script, no framing.
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") ||
		!strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("error page CSP %q", csp)
	}
}

func TestSAMLLoginWithJIT(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		acs, form := s.idp.follow(s.start(nil))
		if !strings.HasSuffix(acs, "/v1/b2b/sso/callback/"+s.connID) {
			t.Fatalf("ACS %q", acs)
		}
		res := s.post(acs, form)
		token := tokenFrom(t, res)
		if !strings.HasPrefix(res.Header.Get("Location"), apptest.Page) {
			t.Fatalf("redirect %q", res.Header.Get("Location"))
		}
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		d := r.Data()
		member := d["member"].(map[string]any)
		if member["email_address"] != "ada@acme.test" || member["name"] != "Ada Lovelace" || member["status"] != "active" {
			t.Fatalf("member: %v", member)
		}
		regs := member["sso_registrations"].([]any)
		if len(regs) != 1 || regs[0].(map[string]any)["external_id"] != "okta-user-1" ||
			regs[0].(map[string]any)["connection_id"] != s.connID {
			t.Fatalf("registrations: %v", regs)
		}
		factors := d["member_session"].(map[string]any)["authentication_factors"].([]any)
		f := factors[0].(map[string]any)
		if f["type"] != "sso" || f["delivery_method"] != "sso_saml" || f["saml_sso_factor"] != nil { // the browser SDK declares no SSO factor object
			t.Fatalf("factor: %v", f)
		}
		// The token is single use.
		r = s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
		apptest.Want(t, r, 404, "sso_token_not_found")

		// The organization lists the connection as active and default.
		org := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+s.orgID, nil).Body["organization"].(map[string]any)
		active := org["sso_active_connections"].([]any)
		if len(active) != 1 || active[0].(map[string]any)["connection_id"] != s.connID || org["sso_default_connection_id"] != s.connID {
			t.Fatalf("organization: %v", org)
		}

		// A second login finds the member by registration, on the backend face.
		acs, form = s.idp.follow(s.start(nil))
		token = tokenFrom(t, s.post(acs, form))
		r = e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token})
		apptest.Want(t, r, 200, "")
		if r.Body["member_id"] != member["member_id"] || r.Body["session_token"] == "" {
			t.Fatalf("second login: %s", r.Raw)
		}
	})
}

func TestSAMLJITPolicy(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, map[string]any{"sso_jit_provisioning": "NOT_ALLOWED", "email_invites": "ALL_ALLOWED"})
		s.idp.login("stranger@acme.test", "okta-user-2", "", "")
		acs, form := s.idp.follow(s.start(nil))
		wantPage(t, s.post(acs, form), 403, "invalid_connection_for_jit_provisioning")

		// An existing member may log in; they get a registration.
		e.CreateMember(s.orgID, "grace@acme.test")
		s.idp.login("grace@acme.test", "okta-user-3", "", "")
		acs, form = s.idp.follow(s.start(nil))
		tokenFrom(t, s.post(acs, form))
	})
}

// A SAML login with no email attribute and a NameID that is no address
// names no one to find or create.
func TestSAMLEmailMissing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("", "okta-user-9", "", "")
		acs, form := s.idp.follow(s.start(nil))
		wantPage(t, s.post(acs, form), 400, "invalid_saml_response_email")
	})
}

// sso_jit_provisioning RESTRICTED provisions new members only through the
// connections it lists: a stranger arriving through another connection is
// refused, and admitted once this connection is listed.
func TestSAMLJITRestrictedToListedConnections(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+s.orgID, map[string]any{"display_name": "Other IdP"})
		apptest.Want(t, r, 200, "")
		other := r.Body["connection"].(map[string]any)["connection_id"].(string)
		restrict := func(conn string) {
			t.Helper()
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+s.orgID, map[string]any{
				"sso_jit_provisioning": "RESTRICTED", "sso_jit_provisioning_allowed_connections": []string{conn}}), 200, "")
		}
		restrict(other)
		s.idp.login("stranger@acme.test", "okta-user-2", "", "")
		acs, form := s.idp.follow(s.start(nil))
		wantPage(t, s.post(acs, form), 403, "invalid_connection_for_jit_provisioning")

		restrict(s.connID)
		acs, form = s.idp.follow(s.start(nil))
		tokenFrom(t, s.post(acs, form))
	})
}

// TestSAMLNegative: every broken response is a clear catalogue error and
// creates no session (no token reaches the customer's page).
func TestSAMLNegative(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")

		t.Run("tampered signature", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
			tampered := strings.Replace(string(raw), "okta-user-1", "okta-user-9", 1)
			if tampered == string(raw) {
				t.Fatal("nothing tampered")
			}
			form.Set("SAMLResponse", base64.StdEncoding.EncodeToString([]byte(tampered)))
			wantPage(t, s.post(acs, form), 400, "invalid_signature_saml_response")
		})
		t.Run("wrong audience", func(t *testing.T) {
			s.idp.audience = "https://other-sp.example/metadata"
			defer func() { s.idp.audience = "" }()
			acs, form := s.idp.follow(s.start(nil))
			wantPage(t, s.post(acs, form), 400, "invalid_audience_saml_response")
		})
		t.Run("replayed assertion", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			tokenFrom(t, s.post(acs, form))
			wantPage(t, s.post(acs, form), 400, "duplicate_saml_response")
		})
		t.Run("expired assertion", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			e.Clock.Advance(5 * time.Minute)
			defer e.Clock.Advance(-5 * time.Minute)
			wantPage(t, s.post(acs, form), 400, "expired_saml_response")
		})
		t.Run("not yet valid assertion", func(t *testing.T) {
			// Our clock well behind the IdP's: the assertion's NotBefore
			// lies beyond the allowed skew.
			acs, form := s.idp.follow(s.start(nil))
			e.Clock.Advance(-10 * time.Minute)
			defer e.Clock.Advance(10 * time.Minute)
			wantPage(t, s.post(acs, form), 400, "not_yet_valid_saml_response")
		})
		t.Run("response to another login", func(t *testing.T) {
			// A genuine response, posted with the relay state of a second
			// login it does not answer (its InResponseTo names the first
			// login's AuthnRequest).
			acs, first := s.idp.follow(s.start(nil))
			_, second := s.idp.follow(s.start(nil))
			first.Set("RelayState", second.Get("RelayState"))
			wantPage(t, s.post(acs, first), 400, "unsolicited_saml_response")
		})
		t.Run("two assertions", func(t *testing.T) {
			// A response signed by the IdP with two assertions in it: the
			// library accepts it, but a second story beside the first is how
			// wrapping attacks work, so a response must carry exactly one.
			// The same response re-signed with one assertion passes, so it is
			// the count that is refused, not the signature.
			acs, form := s.idp.follow(s.start(nil))
			form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), func(*etree.Element) {}))
			tokenFrom(t, s.post(acs, form))
			acs, form = s.idp.follow(s.start(nil))
			form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), func(resp *etree.Element) {
				for _, c := range resp.ChildElements() {
					if c.Tag == "Assertion" {
						resp.AddChild(c.Copy())
						return
					}
				}
				t.Fatal("no assertion in the response")
			}))
			wantPage(t, s.post(acs, form), 400, "invalid_saml_response")
		})
		t.Run("response and assertion answer different logins", func(t *testing.T) {
			// The assertion answers this login; the response around it,
			// signed by the IdP, claims to answer another request.
			acs, form := s.idp.follow(s.start(nil))
			form.Set("SAMLResponse", s.idp.resign(form.Get("SAMLResponse"), func(resp *etree.Element) {
				resp.CreateAttr("InResponseTo", "id-another-request")
			}))
			wantPage(t, s.post(acs, form), 400, "invalid_saml_response")
		})
		t.Run("state mismatch", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			form.Set("RelayState", "not-a-state-we-issued")
			wantPage(t, s.post(acs, form), 400, "unsolicited_saml_response")
		})
		t.Run("no relay state", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			form.Del("RelayState")
			wantPage(t, s.post(acs, form), 400, "missing_saml_relay_state")
		})
		t.Run("no SAMLResponse", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			form.Del("SAMLResponse")
			wantPage(t, s.post(acs, form), 400, "missing_saml_response")
		})
		t.Run("not XML", func(t *testing.T) {
			acs, form := s.idp.follow(s.start(nil))
			form.Set("SAMLResponse", base64.StdEncoding.EncodeToString([]byte("<Response")))
			wantPage(t, s.post(acs, form), 400, "invalid_xml_saml_response")
		})
		t.Run("unsigned", func(t *testing.T) {
			// Neither the response nor its assertion carries a signature.
			acs, form := s.idp.follow(s.start(nil))
			raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
			doc := etree.NewDocument()
			if err := doc.ReadFromBytes(raw); err != nil {
				t.Fatal(err)
			}
			unsign(doc.Root())
			for _, c := range doc.Root().ChildElements() {
				unsign(c)
			}
			out, _ := doc.WriteToBytes()
			form.Set("SAMLResponse", base64.StdEncoding.EncodeToString(out))
			wantPage(t, s.post(acs, form), 400, "missing_signature_saml_response")
		})
		t.Run("unregistered redirect URL", func(t *testing.T) {
			q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID},
				"login_redirect_url": {"https://evil.example/steal"}}
			wantPage(t, s.Get("/v1/public/sso/start?"+q.Encode()), 400, "no_match_for_provided_sso_url")
		})
		t.Run("public token", func(t *testing.T) {
			q := url.Values{"connection_id": {s.connID}}
			wantPage(t, s.Get("/v1/public/sso/start?"+q.Encode()), 400, "public_token_required")
			q.Set("public_token", "public-token-test-00000000-0000-4000-8000-000000000000")
			wantPage(t, s.Get("/v1/public/sso/start?"+q.Encode()), 401, "public_token_not_found")
		})
		t.Run("PKCE mismatch", func(t *testing.T) {
			challenge := base64.RawURLEncoding.EncodeToString(make([]byte, 32))
			acs, form := s.idp.follow(s.start(url.Values{"pkce_code_challenge": {challenge}}))
			token := tokenFrom(t, s.post(acs, form))
			r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token, "pkce_code_verifier": "wrong"}, "")
			apptest.Want(t, r, 400, "pkce_mismatch")
			if r.Body["session_token"] != nil {
				t.Fatalf("session on mismatch: %s", r.Raw)
			}
		})
	})
}

// TestSAMLEncryptedAssertion: with an encryption key on the connection our
// metadata offers its certificate, crewjam encrypts the assertion, and the
// login still works.
func TestSAMLEncryptedAssertion(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		r := e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID,
			map[string]any{"saml_encryption_private_key": rsaPEM(t)})
		apptest.Want(t, r, 200, "")
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		acs, form := s.idp.follow(s.start(nil))
		raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
		if !strings.Contains(string(raw), "EncryptedAssertion") || strings.Contains(string(raw), "ada@acme.test") {
			t.Fatalf("assertion not encrypted: %s", raw)
		}
		token := tokenFrom(t, s.post(acs, form))
		r = s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["member"].(map[string]any)["email_address"] != "ada@acme.test" {
			t.Fatalf("member: %s", r.Raw)
		}
	})
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// A deleted member cannot log in through SSO: not with an SSO token issued
// before the deletion (the redeem refuses inactive_member), and not with a
// new login (the callback refuses it; no token reaches the page).
func TestSAMLDeletedMemberIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		mid := e.CreateMember(s.orgID, "ada@acme.test")
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		acs, form := s.idp.follow(s.start(nil))
		token := tokenFrom(t, s.post(acs, form))
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+s.orgID+"/members/"+mid, nil), 200, "")

		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 403, "inactive_member")
		acs, form = s.idp.follow(s.start(nil))
		wantPage(t, s.post(acs, form), 403, "inactive_member")
	})
}
