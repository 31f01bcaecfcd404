package sso_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// addSAML gives orgID another active SAML connection to s's IdP.
func (s *samlEnv) addSAML(t *testing.T, orgID, name string) string {
	t.Helper()
	r := s.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+orgID, map[string]any{"display_name": name, "identity_provider": "okta"})
	apptest.Want(t, r, 200, "")
	id := r.Body["connection"].(map[string]any)["connection_id"].(string)
	r = s.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+orgID+"/connections/"+id, map[string]any{
		"idp_entity_id": s.idp.idp.MetadataURL.String(), "idp_sso_url": s.idp.idp.SSOURL.String(),
		"x509_certificate": s.idp.certPEM(), "attribute_mapping": map[string]any{"email": "mail"}})
	apptest.Want(t, r, 200, "")
	return id
}

// discovered is the sorted connection ids SSO discovery lists for email.
func discovered(t *testing.T, e *apptest.Env, email string) []string {
	t.Helper()
	r := e.SDK(http.MethodGet, "/b2b/sso/discovery/connections?email_address="+email, nil, "")
	apptest.Want(t, r, 200, "")
	out := []string{}
	for _, c := range r.Data()["connections"].([]any) {
		c := c.(map[string]any)
		if c["display_name"] == "" || c["identity_provider"] != "okta" {
			t.Fatalf("connection %v", c)
		}
		out = append(out, c["connection_id"].(string))
	}
	slices.Sort(out)
	return out
}

func wantConnections(t *testing.T, e *apptest.Env, email string, want ...string) {
	t.Helper()
	want = append([]string{}, want...)
	slices.Sort(want)
	if got := discovered(t, e, email); !slices.Equal(got, want) {
		t.Errorf("%s: got %v, want %v", email, got, want)
	}
}

// TestDiscoverConnections: SSO discovery lists the active connections of
// the organizations the address is a member of (active, pending or
// invited: an SSO login activates such a member) and, only when they have
// none, the connections through which it could join by SSO JIT
// provisioning, as the login will apply it: by domain, not where JIT is
// NOT_ALLOWED, and under RESTRICTED only the allowed connections. A
// connection listed is one whose login gets past the identity provider.
func TestDiscoverConnections(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		// Acme (JIT open): two connections. Beta (JIT closed) and Gamma
		// (JIT restricted to its second connection) admit the same domain.
		s := newSAMLEnv(t, e, map[string]any{"email_allowed_domains": []string{"acme.test"}})
		a1, a2 := s.connID, s.addSAML(t, s.orgID, "Acme Okta 2")
		beta := e.CreateOrg("beta", "NOT_ALLOWED", map[string]any{"email_allowed_domains": []string{"acme.test"},
			"sso_jit_provisioning": "NOT_ALLOWED"})
		b1 := createExternal(t, e, beta, s.orgID, a1, nil)["connection_id"].(string)
		gamma := e.CreateOrg("gamma", "NOT_ALLOWED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		g1 := createExternal(t, e, gamma, s.orgID, a1, nil)["connection_id"].(string)
		g2 := s.addSAML(t, gamma, "Gamma Okta")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+gamma, map[string]any{
			"sso_jit_provisioning": "RESTRICTED", "sso_jit_provisioning_allowed_connections": []string{g2}}), 200, "")
		plain := e.CreateOrg("plain", "NOT_ALLOWED", nil)
		// A member with a proven acme.test address vouches for each
		// (TestSSODiscoveryNeedsAProvenMemberAndHonoursClaims).
		for org, email := range map[string]string{s.orgID: "ann@acme.test", beta: "bea@acme.test", gamma: "gil@acme.test"} {
			e.CreateVerifiedMember(org, email)
		}

		// No membership: what JIT admits, nothing of Beta, Gamma's allowed one.
		wantConnections(t, e, "new@acme.test", a1, a2, g2)
		wantConnections(t, e, "NEW@Acme.Test", a1, a2, g2)
		// The one offered in Gamma takes them in.
		s.idp.login("new@acme.test", "okta-new", "New", "Person")
		acs, form := s.idp.follow(s.start(url.Values{"connection_id": {g2}}))
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tokenFrom(t, s.post(acs, form))}, "")
		apptest.Want(t, r, 200, "")
		if m := r.Data()["member"].(map[string]any); m["organization_id"] != gamma || m["email_address"] != "new@acme.test" {
			t.Fatalf("JIT login: %s", r.Raw)
		}
		// Now a member of Gamma: all of Gamma's connections, and only those.
		wantConnections(t, e, "new@acme.test", g1, g2)
		// A member only of an organization without SSO: the same.
		e.CreateMember(plain, "bob@acme.test")
		wantConnections(t, e, "bob@acme.test", a1, a2, g2)
		// A member of an organization with SSO: its connections only, though
		// the domain matches others (and its own JIT is closed).
		e.CreateMember(beta, "carol@acme.test")
		wantConnections(t, e, "carol@acme.test", b1)
		// Membership needs no domain; every connection of each organization.
		e.CreateMember(s.orgID, "contractor@elsewhere.test")
		e.CreateMember(gamma, "contractor@elsewhere.test")
		wantConnections(t, e, "contractor@elsewhere.test", a1, a2, g1, g2)
		// An invited member counts: the SSO login activates them.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{
			"organization_id": gamma, "email_address": "guest@elsewhere.test"}), 200, "")
		wantConnections(t, e, "guest@elsewhere.test", g1, g2)
		// A deleted member does not: the address is listed what a stranger
		// at its domain is (this route answers anyone with the public
		// token), JIT connections of the organization that deleted it
		// included; the login there still refuses it
		// (TestSSODiscoveryListsFormerMembersAsStrangers).
		e.DeleteMember(beta, e.CreateMember(beta, "gone@elsewhere.test"))
		wantConnections(t, e, "gone@elsewhere.test")
		e.DeleteMember(gamma, e.CreateMember(gamma, "gone@acme.test"))
		wantConnections(t, e, "gone@acme.test", a1, a2, g2)
		// Nothing at all.
		wantConnections(t, e, "someone@elsewhere.test")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/sso/discovery/connections?email_address=nope", nil, ""), 400, "invalid_email")
	})
}

// The audit's SSO phishing scenario. A stranger's organization allows
// bigcorp.test with SSO JIT open and an active connection to her identity
// provider; the widget starts the only connection SSO discovery lists at
// once, so listing hers would send victim@bigcorp.test to her provider.
// SSO discovery lists JIT connections only of organizations that an
// active member with a proven address at the domain vouches for: not on
// the word of her own provider, which asserts any address she likes. And
// where an organization claims the domain (claimed_email_domains, set by
// the backend), only the claimant's connections are listed, as email
// discovery offers only the claimant, and the claim vouches for it.
func TestSSODiscoveryNeedsAProvenMemberAndHonoursClaims(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, map[string]any{"email_allowed_domains": []string{"bigcorp.test"}, "sso_jit_provisioning": "ALL_ALLOWED"})
		wantConnections(t, e, "victim@bigcorp.test")
		// Her provider provisions ceo@bigcorp.test by SSO JIT: verified in
		// her organization, proven to nobody.
		m := s.loginWithGroups("ceo@bigcorp.test", "her-ceo").Body["member"].(map[string]any)
		if m["email_address"] != "ceo@bigcorp.test" || m["email_address_verified"] != true {
			t.Fatalf("SSO JIT member: %v", m)
		}
		wantConnections(t, e, "victim@bigcorp.test")
		if got := apptest.Memberships(e.Discover("victim@bigcorp.test")); len(got) != 0 {
			t.Fatalf("email discovery offered %v", got)
		}
		// A member who proved a bigcorp.test address vouches for it.
		e.CreateVerifiedMember(s.orgID, "dana@bigcorp.test")
		wantConnections(t, e, "victim@bigcorp.test", s.connID)

		// The real BigCorp claims the domain: hers is no longer listed,
		// and the claimant's connection is, on the claim's word (only the
		// customer's backend sets claims; an organization whose people log
		// in only by SSO has no member with a proven address).
		bigcorp := e.CreateOrg("bigcorp", "NOT_ALLOWED", map[string]any{"email_allowed_domains": []string{"bigcorp.test"},
			"claimed_email_domains": []string{"bigcorp.test"}, "sso_jit_provisioning": "ALL_ALLOWED"})
		realConn := s.addSAML(t, bigcorp, "BigCorp Okta")
		wantConnections(t, e, "victim@bigcorp.test", realConn)
		// Members still see their own organizations' connections.
		wantConnections(t, e, "ceo@bigcorp.test", s.connID)
	})
}

// SSO discovery answers anyone holding the public token, so a former
// member is listed what a stranger at the same domain is: the JIT
// connections of the organization that deleted them included (they were
// left out, which told who used to be a member). The list is only what the
// login screen offers: the login through that connection still refuses
// the deleted member, at the callback, and reactivates no one.
func TestSSODiscoveryListsFormerMembersAsStrangers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, map[string]any{"email_allowed_domains": []string{"acme.test"}})
		e.CreateVerifiedMember(s.orgID, "ann@acme.test") // vouches for acme.test
		gone := e.CreateVerifiedMember(s.orgID, "gone@acme.test")
		e.DeleteMember(s.orgID, gone)
		wantConnections(t, e, "stranger@acme.test", s.connID)
		wantConnections(t, e, "gone@acme.test", s.connID)

		s.idp.login("gone@acme.test", "okta-gone", "Gone", "Member")
		acs, form := s.idp.follow(s.start(url.Values{"connection_id": {s.connID}}))
		wantPage(t, s.post(acs, form), 403, "inactive_member")
		if m := e.MemberByID(s.orgID, gone); m["status"] != "deleted" {
			t.Fatalf("member after the login: %v", m)
		}
	})
}
