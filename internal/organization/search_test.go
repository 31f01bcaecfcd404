package organization_test

import (
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// orgFixture creates three organizations with distinct settings and
// members, so every filter has something to tell apart.
func orgFixture(t *testing.T, e *apptest.Env) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, o := range []map[string]any{
		{"organization_name": "Alpha One", "organization_slug": "alpha-one", "email_allowed_domains": []string{"alpha.test"},
			"email_jit_provisioning": "RESTRICTED", "email_invites": "ALL_ALLOWED", "auth_methods": "RESTRICTED", "allowed_auth_methods": []string{"magic_link", "email_otp"},
			"mfa_methods": "RESTRICTED", "allowed_mfa_methods": []string{"totp"}, "mfa_policy": "REQUIRED_FOR_ALL"},
		{"organization_name": "Beta Two", "organization_slug": "beta-two", "email_allowed_domains": []string{"beta.test", "shared.test"},
			"email_jit_provisioning": "ALL_ALLOWED", "email_invites": "RESTRICTED", "allowed_auth_methods": []string{"password"}},
		{"organization_name": "Gamma Three", "organization_slug": "gamma-three", "email_invites": "NOT_ALLOWED",
			"allowed_mfa_methods": []string{"sms_otp", "totp"}},
	} {
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations", o)
		if r.Status != 200 {
			t.Fatalf("create %v: %s", o["organization_slug"], r.Raw)
		}
		ids[o["organization_slug"].(string)] = r.Body["organization"].(map[string]any)["organization_id"].(string)
	}
	e.CreateMember(ids["alpha-one"], "ada@alpha.test")
	e.CreateMember(ids["beta-two"], "bob@beta.test")
	e.CreateMember(ids["beta-two"], "carol@shared.test")
	zed := e.CreateMember(ids["gamma-three"], "zed@gamma.test")
	if r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+ids["gamma-three"]+"/members/"+zed, nil); r.Status != 200 {
		t.Fatalf("delete member: %s", r.Raw)
	}
	return ids
}

// slugsOf runs an organization search and returns the slugs found.
func slugsOf(e *apptest.Env, body map[string]any) []string {
	e.T.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/search", body)
	if r.Status != 200 {
		e.T.Fatalf("search %v: %s", body, r.Raw)
	}
	var out []string
	for _, o := range r.Body["organizations"].([]any) {
		out = append(out, o.(map[string]any)["organization_slug"].(string))
	}
	sort.Strings(out)
	return out
}

func TestOrganizationSearchFilters(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ids := orgFixture(t, e)
		all := []string{"alpha-one", "beta-two", "gamma-three"}
		tests := []struct {
			name string
			body map[string]any
			want []string
		}{
			{"no query", map[string]any{}, all},
			{"no operands", apptest.Query("AND"), all},
			{"organization_ids", apptest.Query("AND", apptest.Filter("organization_ids", []string{ids["alpha-one"], ids["gamma-three"], "organization-test-nope"})), []string{"alpha-one", "gamma-three"}},
			{"organization_slugs", apptest.Query("AND", apptest.Filter("organization_slugs", []string{"BETA-two"})), []string{"beta-two"}},
			{"organization_name_fuzzy", apptest.Query("AND", apptest.Filter("organization_name_fuzzy", "ETA T")), []string{"beta-two"}},
			{"organization_slug_fuzzy", apptest.Query("AND", apptest.Filter("organization_slug_fuzzy", "a-o")), []string{"alpha-one"}},
			{"fuzzy wildcards are literal", apptest.Query("AND", apptest.Filter("organization_slug_fuzzy", "a_o")), nil},
			{"member_emails", apptest.Query("AND", apptest.Filter("member_emails", []string{"Carol@Shared.test", "ada@alpha.test"})), []string{"alpha-one", "beta-two"}},
			{"member_emails ignores deleted members", apptest.Query("AND", apptest.Filter("member_emails", []string{"zed@gamma.test"})), nil},
			{"member_email_fuzzy", apptest.Query("AND", apptest.Filter("member_email_fuzzy", "@beta")), []string{"beta-two"}},
			{"allowed_domains", apptest.Query("AND", apptest.Filter("allowed_domains", []string{"shared.test"})), []string{"beta-two"}},
			{"allowed_domains is exact", apptest.Query("AND", apptest.Filter("allowed_domains", []string{"hared.test"})), nil},
			{"allowed_domain_fuzzy", apptest.Query("AND", apptest.Filter("allowed_domain_fuzzy", "ha.te")), []string{"alpha-one"}},
			{"allowed_domain_fuzzy ignores list punctuation", apptest.Query("AND", apptest.Filter("allowed_domain_fuzzy", `","`)), nil},
			{"allowed_auth_methods", apptest.Query("AND", apptest.Filter("allowed_auth_methods", []string{"email_otp", "password"})), []string{"alpha-one", "beta-two"}},
			{"allowed_mfa_methods", apptest.Query("AND", apptest.Filter("allowed_mfa_methods", []string{"sms_otp"})), []string{"gamma-three"}},
			{"email_jit_provisioning", apptest.Query("AND", apptest.Filter("email_jit_provisioning", "NOT_ALLOWED")), []string{"gamma-three"}},
			{"email_jit_provisioning list", apptest.Query("AND", apptest.Filter("email_jit_provisioning", []string{"RESTRICTED", "ALL_ALLOWED"})), []string{"alpha-one", "beta-two"}},
			{"email_invites", apptest.Query("AND", apptest.Filter("email_invites", "ALL_ALLOWED")), []string{"alpha-one"}},
			{"auth_methods", apptest.Query("AND", apptest.Filter("auth_methods", "RESTRICTED")), []string{"alpha-one"}},
			{"mfa_methods", apptest.Query("AND", apptest.Filter("mfa_methods", "ALL_ALLOWED")), []string{"beta-two", "gamma-three"}},
			{"mfa_policy", apptest.Query("AND", apptest.Filter("mfa_policy", "OPTIONAL")), []string{"beta-two", "gamma-three"}},
			{"AND narrows", apptest.Query("AND", apptest.Filter("member_email_fuzzy", ".test"), apptest.Filter("email_jit_provisioning", "ALL_ALLOWED")), []string{"beta-two"}},
			{"AND of disjoint filters", apptest.Query("AND", apptest.Filter("organization_slugs", []string{"alpha-one"}), apptest.Filter("organization_slugs", []string{"beta-two"})), nil},
			{"OR widens", apptest.Query("OR", apptest.Filter("organization_slugs", []string{"alpha-one"}), apptest.Filter("mfa_policy", "OPTIONAL")), all},
			{"OR of two", apptest.Query("OR", apptest.Filter("allowed_domains", []string{"alpha.test"}), apptest.Filter("email_invites", "NOT_ALLOWED")), []string{"alpha-one", "gamma-three"}},
			{"operator is case-insensitive", apptest.Query("or", apptest.Filter("organization_slugs", []string{"alpha-one"}), apptest.Filter("organization_slugs", []string{"beta-two"})), []string{"alpha-one", "beta-two"}},
		}
		for _, tc := range tests {
			if got := slugsOf(e, tc.body); !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			}
		}

		for name, body := range map[string]map[string]any{
			"unknown filter":   apptest.Query("AND", apptest.Filter("organization_colour", "red")),
			"wrong value type": apptest.Query("AND", apptest.Filter("organization_ids", "organization-test-x")),
			"empty list":       apptest.Query("AND", apptest.Filter("organization_slugs", []string{})),
			"missing value":    apptest.Query("AND", map[string]any{"filter_name": "organization_slugs"}),
			"unknown policy":   apptest.Query("AND", apptest.Filter("mfa_policy", "SOMETIMES")),
			"unknown method":   apptest.Query("AND", apptest.Filter("allowed_auth_methods", []string{"telepathy"})),
			"bad operator":     apptest.Query("XOR", apptest.Filter("organization_slugs", []string{"alpha-one"})),
			"limit too large":  {"limit": 1001},
			"bad cursor":       {"cursor": "not-a-cursor"},
		} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/search", body), 400, "invalid_request")
			_ = name
		}

		// Another project sees none of these organizations, by any filter.
		other := e.NewProject("Other")
		r := e.Do(http.MethodPost, "/v1/b2b/organizations/search", apptest.Query("OR", apptest.Filter("organization_ids", []string{ids["alpha-one"]}),
			apptest.Filter("member_email_fuzzy", ".test")), nil, other.Project.ID, other.Secret)
		if r.Status != 200 || len(r.Body["organizations"].([]any)) != 0 || r.Body["results_metadata"].(map[string]any)["total"] != float64(0) {
			t.Fatalf("other project's search: %s", r.Raw)
		}
	})
}

func TestOrganizationSearchPaging(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		var created []string
		for _, s := range []string{"p-a", "p-b", "p-c", "p-d", "p-e"} {
			created = append(created, e.CreateOrg(s, "NOT_ALLOWED", nil))
			e.Clock.Advance(time.Millisecond)
		}
		page := func(cursor any) (ids []string, total float64, next any) {
			t.Helper()
			body := map[string]any{"limit": 2, "cursor": cursor}
			r := e.Backend(http.MethodPost, "/v1/b2b/organizations/search", body)
			if r.Status != 200 {
				t.Fatalf("page: %s", r.Raw)
			}
			for _, o := range r.Body["organizations"].([]any) {
				ids = append(ids, o.(map[string]any)["organization_id"].(string))
			}
			meta := r.Body["results_metadata"].(map[string]any)
			return ids, meta["total"].(float64), meta["next_cursor"]
		}

		first, total, next := page(nil)
		if total != 5 || len(first) != 2 || next == nil {
			t.Fatalf("first page: %v total %v next %v", first, total, next)
		}
		// Changes between calls neither skip nor repeat rows: delete a row
		// already seen and add a new one, then keep paging.
		if r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+first[0], nil); r.Status != 200 {
			t.Fatal(r.Raw)
		}
		late := e.CreateOrg("p-late", "NOT_ALLOWED", nil)
		seen := slices.Clone(first)
		for i := 0; next != nil; i++ {
			if i > 5 {
				t.Fatal("paging does not end")
			}
			var ids []string
			ids, _, next = page(next)
			seen = append(seen, ids...)
		}
		want := append(slices.Clone(created), late)
		if !slices.Equal(seen, want) {
			t.Fatalf("paged ids = %v, want creation order %v", seen, want)
		}

		// The last page says so; a page past the end is empty.
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/search", map[string]any{"limit": 6})
		if meta := r.Body["results_metadata"].(map[string]any); meta["next_cursor"] != nil || meta["total"] != float64(5) {
			t.Fatalf("single page: %s", r.Raw)
		}
	})
}
