package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// "All fuzzy search filters require a minimum of three characters" (the
// Node client's search types): a shorter value, counted in characters
// after trimming, is refused with the API family's type for that filter
// of that search, on every route that searches.
func TestFuzzyFiltersNeedThreeCharacters(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		type route struct {
			name string
			call func(body map[string]any) apptest.Resp
		}
		orgSearch := route{"organization search", func(body map[string]any) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/organizations/search", body)
		}}
		memberSearches := []route{
			{"backend member search", func(body map[string]any) apptest.Resp {
				body["organization_ids"] = []string{f.Acme}
				return e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", body)
			}},
			{"SDK member search", func(body map[string]any) apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", body, f.Admin)
			}},
		}
		cases := []struct {
			routes  []route
			filter  string
			errType string
		}{
			{[]route{orgSearch}, "organization_name_fuzzy", "organization_search_organization_name_fuzzy_too_short"},
			{[]route{orgSearch}, "organization_slug_fuzzy", "organization_search_organization_slug_fuzzy_too_short"},
			{[]route{orgSearch}, "member_email_fuzzy", "organization_search_member_email_fuzzy_too_short"},
			{[]route{orgSearch}, "allowed_domain_fuzzy", "organization_search_allowed_domain_fuzzy_too_short"},
			{memberSearches, "member_email_fuzzy", "member_search_member_email_fuzzy_too_short"},
			{memberSearches, "member_mfa_phone_number_fuzzy", "member_search_member_mfa_phone_number_fuzzy_too_short"},
		}
		for _, c := range cases {
			for _, r := range c.routes {
				for _, short := range []string{"", "ac", "  ac  ", "åß"} {
					got := r.call(apptest.Query("AND", apptest.Filter(c.filter, short)))
					if got.Status != 400 || got.ErrType() != c.errType {
						t.Errorf("%s, %s %q: got %d %s, want 400 %s", r.name, c.filter, short, got.Status, got.Raw, c.errType)
						continue
					}
					if d, _ := got.Body["error_details"].(map[string]any); d["filter_name"] != c.filter {
						t.Errorf("%s, %s: error_details = %v", r.name, c.filter, got.Body["error_details"])
					}
				}
				for _, enough := range []string{"acm", " acm ", "åßç"} {
					if got := r.call(apptest.Query("AND", apptest.Filter(c.filter, enough))); got.Status != 200 {
						t.Errorf("%s, %s %q: got %d %s, want 200", r.name, c.filter, enough, got.Status, got.Raw)
					}
				}
			}
		}
		// A value of the wrong type is still a plain invalid_request.
		apptest.Want(t, orgSearch.call(apptest.Query("AND", apptest.Filter("organization_name_fuzzy", 12))), 400, "invalid_request")
	})
}
