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
