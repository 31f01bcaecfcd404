package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// Member names refuse control characters as organization names do
// (invalid_request naming the field: the catalogue has no member-name
// type), on both faces; a name an identity provider sends loses them
// instead, since the person cannot fix it here.
func TestMemberNameControlCharacters(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		bell := "Bob\u0007 Builder"
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members", map[string]any{"email_address": "bell@acme.test", "name": bell})
		apptest.Want(t, r, 400, "invalid_request")
		if r.Body["error_details"].(map[string]any)["field"] != "name" {
			t.Errorf("refusal names %v", r.Body["error_details"])
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.Acme+"/members/"+f.PlainID, map[string]any{"name": bell}), 400, "invalid_request")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"name": "esc\u001b[2J"}, f.Plain), 400, "invalid_request")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"name": "Bob Ünïcode"}, f.Plain), 200, "")
		if got := e.MemberByID(f.Acme, f.PlainID)["name"]; got != "Bob Ünïcode" {
			t.Errorf("name = %v", got)
		}
	})
	if got := organization.TruncateName(" Ann\u0007\tLee\u0000 "); got != "Ann Lee" {
		t.Errorf("TruncateName = %q", got)
	}
}

// An organization create without a name, absent, null or blank, is
// organization_name_missing (the API family's type, 400) naming the
// field, and creates nothing. (A discovery create names the organization
// after the email instead, internal/discovery.)
func TestOrganizationCreateWithoutAName(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for name, body := range map[string]map[string]any{
			"absent": {"organization_slug": "nameless"},
			"null":   {"organization_slug": "nameless", "organization_name": nil},
			"empty":  {"organization_slug": "nameless", "organization_name": ""},
			"blank":  {"organization_slug": "nameless", "organization_name": " \t "},
		} {
			r := e.Backend(http.MethodPost, "/v1/b2b/organizations", body)
			apptest.Want(t, r, 400, "organization_name_missing")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "organization_name" {
				t.Errorf("%s: refusal names %v", name, r.Body["error_details"])
			}
		}
		// The slug stayed free: nothing was created.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_slug": "nameless",
			"organization_name": "Named"}), 200, "")
	})
}

// Names others read refuse the bidirectional formatting characters (an
// override makes a login email's subject read other words than the name
// holds), and a name with nothing visible counts as missing: an
// organization create without a visible name is organization_name_missing,
// a rename to one invalid_organization_name, and a member name made of
// invisible characters is cleared as a blank one is. Joiners and soft
// hyphens inside a visible name stay.
func TestNamesRefuseBidiControlsAndInvisibleNames(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		orgs, members := "/v1/b2b/organizations", "/v1/b2b/organizations/"+f.Acme+"/members"
		for _, bidi := range []string{"\u202eevil", "Acme\u202a", "\u2066Acme\u2069", "Acme\u200e", "\u200fAcme", "\u061cAcme"} {
			apptest.Want(t, e.Backend(http.MethodPost, orgs, map[string]any{"organization_name": bidi, "organization_slug": "bidi"}), 400, "invalid_organization_name")
			apptest.Want(t, e.Backend(http.MethodPut, orgs+"/"+f.Acme, map[string]any{"organization_name": bidi}), 400, "invalid_organization_name")
			apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": bidi}, f.Admin), 400, "invalid_organization_name")
			r := e.Backend(http.MethodPost, members, map[string]any{"email_address": "bidi@acme.test", "name": bidi})
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "name" {
				t.Errorf("%q: refusal names %v", bidi, r.Body["error_details"])
			}
			apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"name": bidi}, f.Plain), 400, "invalid_request")
		}
		for _, blank := range []string{"\u200b\u200b", "\u00ad", " \u200d \u2060 ", "\u0301\u0301", "\u3164"} {
			apptest.Want(t, e.Backend(http.MethodPost, orgs, map[string]any{"organization_name": blank, "organization_slug": "blank"}), 400, "organization_name_missing")
			apptest.Want(t, e.Backend(http.MethodPut, orgs+"/"+f.Acme, map[string]any{"organization_name": blank}), 400, "invalid_organization_name")
			apptest.Want(t, e.Backend(http.MethodPut, members+"/"+f.PlainID, map[string]any{"name": "Bob"}), 200, "")
			apptest.Want(t, e.Backend(http.MethodPut, members+"/"+f.PlainID, map[string]any{"name": blank}), 200, "")
			if got := e.MemberByID(f.Acme, f.PlainID)["name"]; got != "" {
				t.Errorf("member name %q stored as %q", blank, got)
			}
		}
		// Nothing above was created.
		if n := e.Count("SELECT COUNT(*) FROM organizations WHERE organization_slug IN ('bidi', 'blank')"); n != 0 {
			t.Errorf("%d organizations created", n)
		}
		for _, ok := range []string{"👩\u200d👩\u200d👧\u200d👦", "می\u200cخواهم", "Ada\u00adLovelace", "🏴\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f Wales"} {
			r := e.Backend(http.MethodPut, orgs+"/"+f.Acme, map[string]any{"organization_name": ok})
			apptest.Want(t, r, 200, "")
			if got := r.Body["organization"].(map[string]any)["organization_name"]; got != ok {
				t.Errorf("organization name %q stored as %q", ok, got)
			}
			apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"name": ok}, f.Plain), 200, "")
			if got := e.MemberByID(f.Acme, f.PlainID)["name"]; got != ok {
				t.Errorf("member name %q stored as %q", ok, got)
			}
		}
	})
	// A name an identity provider sends cannot be refused: it loses them.
	for in, want := range map[string]string{"\u202eAda\u202c Lovelace": "Ada Lovelace", "\u200b\u200e": "", " \u2067Ann\u2069\tLee ": "Ann Lee"} {
		if got := organization.TruncateName(in); got != want {
			t.Errorf("TruncateName(%q) = %q, want %q", in, got, want)
		}
	}
}
