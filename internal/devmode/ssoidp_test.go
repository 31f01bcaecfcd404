package devmode_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/devmode"
)

// seedSSO gives the test project the SSO demo organization wired to the
// dev identity providers, as `latchkey dev` does for the demo project.
func seedSSO(t *testing.T, e *apptest.Env) string {
	t.Helper()
	// crewjam stamps assertions with the real clock.
	e.Clock.Advance(time.Until(e.Clock.Now()) * -1)
	org := e.CreateOrg("initech", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"initech.test"},
		"sso_jit_provisioning": "ALL_ALLOWED"})
	// As devmode.Seed does: a proven member at initech.test vouches for
	// the domain, so SSO discovery offers Initech's connections by it.
	e.CreateVerifiedMember(org, "peter@initech.test")
	for range 2 { // every dev start seeds again: the second run must update, not duplicate
		if err := devmode.SeedSSO(context.Background(), e.App.SSO, e.App.Orgs, e.Project.Project.ID,
			e.App.DevSAML, e.App.DevOIDC); err != nil {
			t.Fatal(err)
		}
	}
	r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil)
	apptest.Want(t, r, 200, "")
	active := r.Body["organization"].(map[string]any)["sso_active_connections"].([]any)
	if len(active) != 2 {
		t.Fatalf("active connections: %v", active)
	}
	return org
}

// connection is the id of the seeded connection named name.
func connection(t *testing.T, e *apptest.Env, org, name string) string {
	t.Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil)
	for _, c := range r.Body["organization"].(map[string]any)["sso_active_connections"].([]any) {
		if c := c.(map[string]any); c["display_name"] == name {
			return c["connection_id"].(string)
		}
	}
	t.Fatalf("no active connection %q", name)
	return ""
}

var (
	hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	formAction  = regexp.MustCompile(`action="([^"]*)"`)
)

// fields reads the hidden fields of the page's last form (the one where
// an identity is typed).
func fields(t *testing.T, body string) url.Values {
	t.Helper()
	forms := strings.Split(body, "<form")
	out := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(forms[len(forms)-1], -1) {
		out.Set(m[1], html.UnescapeString(m[2]))
	}
	return out
}

func wantPageCSP(t *testing.T, r apptest.Resp) {
	t.Helper()
	csp := r.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "'nonce-") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("page CSP %q", csp)
	}
}

// authenticate redeems the token of a redirect to the customer's page.
func authenticate(t *testing.T, e *apptest.Env, r apptest.Resp) map[string]any {
	t.Helper()
	if r.Status != http.StatusFound {
		t.Fatalf("callback: %d %s", r.Status, r.Raw)
	}
	r = e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": apptest.LinkToken(t, r.Header.Get("Location"), "", "sso"),
		"session_duration_minutes": 60}, "")
	apptest.Want(t, r, 200, "")
	return r.Data()
}

func start(t *testing.T, e *apptest.Env, connID, prefix string) *url.URL {
	t.Helper()
	r := e.Get("/v1/public/sso/start?" + url.Values{"public_token": {e.Project.PublicToken}, "connection_id": {connID}}.Encode())
	if r.Status != http.StatusFound || !strings.HasPrefix(r.Header.Get("Location"), e.Srv.URL+prefix) {
		t.Fatalf("start: %d %q %s", r.Status, r.Header.Get("Location"), r.Raw)
	}
	u, _ := url.Parse(r.Header.Get("Location"))
	return u
}

var form = http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}

// A full SP-initiated SAML login through the dev SAML IdP: the pick page,
// a typed identity with groups, the signed response auto-posted to the
// ACS, and a new member by SSO JIT provisioning.
func TestDevSAMLIdPLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := seedSSO(t, e)
		conn := connection(t, e, org, devmode.DemoSAMLConnection)
		idp := start(t, e, conn, "/dev/saml/sso?")
		page := e.Get(idp.String())
		if page.Status != 200 || !strings.Contains(string(page.Raw), "Continue as Peter Gibbons") {
			t.Fatalf("pick page: %d %s", page.Status, page.Raw)
		}
		wantPageCSP(t, page)
		f := fields(t, string(page.Raw))
		f.Set("email", "Milton@Initech.test")
		f.Set("first_name", "Milton")
		f.Set("last_name", "Waddams")
		f.Set("groups", "admins, basement")
		post := e.Do(http.MethodPost, "/dev/saml/sso", f.Encode(), form, "", "")
		if post.Status != 200 {
			t.Fatalf("approve: %d %s", post.Status, post.Raw)
		}
		wantPageCSP(t, post)
		acs := formAction.FindStringSubmatch(string(post.Raw))
		resp := url.Values{}
		for _, m := range hiddenField.FindAllStringSubmatch(string(post.Raw), -1) {
			resp.Set(m[1], html.UnescapeString(m[2]))
		}
		if acs == nil || html.UnescapeString(acs[1]) != e.Srv.URL+"/v1/b2b/sso/callback/"+conn || resp.Get("SAMLResponse") == "" {
			t.Fatalf("post page: %s", post.Raw)
		}
		d := authenticate(t, e, e.Do(http.MethodPost, html.UnescapeString(acs[1]), resp.Encode(), form, "", ""))
		m := d["member"].(map[string]any)
		if m["email_address"] != "milton@initech.test" || m["name"] != "Milton Waddams" || m["organization_id"] != org {
			t.Fatalf("member %v", m)
		}
		regs := m["sso_registrations"].([]any)
		attrs := regs[0].(map[string]any)["sso_attributes"].(map[string]any)
		if regs[0].(map[string]any)["connection_id"] != conn || len(attrs["groups"].([]any)) != 2 {
			t.Fatalf("registration %v", regs)
		}
		// The seeded group assignment makes the admins group admins.
		admin := false
		for _, r := range m["roles"].([]any) {
			r := r.(map[string]any)
			admin = admin || r["role_id"] == "stytch_admin" && r["sources"].([]any)[0].(map[string]any)["type"] == "sso_connection_group"
		}
		if !admin {
			t.Fatalf("roles %v", m["roles"])
		}
		// The pick page's ticket is single use.
		again := e.Do(http.MethodPost, "/dev/saml/sso", f.Encode(), form, "", "")
		if again.Status != http.StatusBadRequest {
			t.Fatalf("replayed ticket: %d", again.Status)
		}
	})
}

// A full OIDC login through the dev OpenID provider, and SSO discovery
// finding both demo connections by the email's domain.
func TestDevOIDCIdPLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := seedSSO(t, e)
		conn := connection(t, e, org, devmode.DemoOIDCConnection)
		r := e.SDK(http.MethodGet, "/b2b/sso/discovery/connections?email_address=someone@initech.test", nil, "")
		apptest.Want(t, r, 200, "")
		if n := len(r.Data()["connections"].([]any)); n != 2 {
			t.Fatalf("discovery: %s", r.Raw)
		}
		idp := start(t, e, conn, "/dev/oidc/authorize?")
		page := e.Get(idp.String())
		if page.Status != 200 || !strings.Contains(string(page.Raw), "Continue as Michael Bolton") {
			t.Fatalf("pick page: %d %s", page.Status, page.Raw)
		}
		wantPageCSP(t, page)
		f := fields(t, string(page.Raw))
		if f.Get("nonce") == "" || f.Get("code_challenge") == "" || f.Get("state") == "" {
			t.Fatalf("hidden fields %v", f)
		}
		f.Set("email", "peter@initech.test")
		f.Set("first_name", "Peter")
		approve := e.Do(http.MethodPost, "/dev/oidc/authorize", f.Encode(), form, "", "")
		if approve.Status != http.StatusFound {
			t.Fatalf("approve: %d %s", approve.Status, approve.Raw)
		}
		d := authenticate(t, e, e.Get(approve.Header.Get("Location")))
		m := d["member"].(map[string]any)
		if m["email_address"] != "peter@initech.test" || m["organization_id"] != org {
			t.Fatalf("member %v", m)
		}
		factor := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if factor["delivery_method"] != "sso_oidc" {
			t.Fatalf("factor %v", factor)
		}
		// Denying at the provider is an error page, not a session.
		idp = start(t, e, conn, "/dev/oidc/authorize?")
		df := fields(t, string(e.Get(idp.String()).Raw))
		df.Set("deny", "1")
		deny := e.Do(http.MethodPost, "/dev/oidc/authorize", df.Encode(), form, "", "")
		back := e.Get(deny.Header.Get("Location"))
		if back.Header.Get("X-Latchkey-Error-Type") != "sso_identity_provider_error" {
			t.Fatalf("deny: %d %s", back.Status, back.Raw)
		}
	})
}
