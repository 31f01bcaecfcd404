package organization_test

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// values returns n distinct strings made from format (one %d).
func values(format string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// wantFilterRefused checks a search refused with invalid_request naming
// the operand's filter.
func wantFilterRefused(t *testing.T, r apptest.Resp, filter string) {
	t.Helper()
	apptest.Want(t, r, 400, "invalid_request")
	details, _ := r.Body["error_details"].(map[string]any)
	if details["field"] != "query.operands" || details["filter_name"] != filter {
		t.Fatalf("refusal names %v, want query.operands %s: %s", details, filter, r.Raw)
	}
}

// A search takes at most 1,000 distinct values across its operands. Up to
// that, any shape answers, correctly, on both engines: one list of 1,000
// values (no longer an OR chain SQLite refuses past depth 1,000), the
// same values in several operands, repeats (merged), and member_roles over
// organizations whose email-domain role assignments add conditions of
// their own.
func TestSearchValueCap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.CreateOrg("acme", "ALL_ALLOWED", map[string]any{
			"email_allowed_domains": []string{"acme.test", "acme.example"},
			"allowed_auth_methods":  []string{"sso", "password"},
			"rbac_email_implicit_role_assignments": []any{
				map[string]any{"role_id": "stytch_admin", "domain": "acme.test"},
				map[string]any{"role_id": "stytch_admin", "domain": "acme.example"}}})
		beta := e.CreateOrg("beta", "ALL_ALLOWED", map[string]any{"email_allowed_domains": []string{"beta.test"},
			"rbac_email_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "domain": "beta.test"}}})
		e.CreateOrg("gamma", "ALL_ALLOWED", nil)
		// Verified addresses: only those hold their domain's roles.
		ada := e.CreateVerifiedMember(acme, "ada@acme.test")
		e.CreateMember(acme, "bob@other.test")
		e.CreateVerifiedMember(beta, "cy@beta.test")

		orgSearch := func(body map[string]any) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/organizations/search", body)
		}
		slugs := func(body map[string]any) []string {
			t.Helper()
			r := orgSearch(body)
			apptest.Want(t, r, 200, "")
			var out []string
			for _, o := range r.Body["organizations"].([]any) {
				out = append(out, o.(map[string]any)["organization_slug"].(string))
			}
			sort.Strings(out)
			return out
		}
		members := func(body map[string]any) []string {
			t.Helper()
			got, _ := e.EmailsOf(body)
			return got
		}
		domains := append(values("d%d.test", 999), "beta.test")
		roles := append(values("role-%d", 999), "stytch_admin")
		ids := append(values("member-test-%d", 999), ada)
		both := []string{acme, beta}

		for _, tc := range []struct {
			name      string
			got, want []string
		}{
			{"allowed_domains x1000", slugs(apptest.Query("AND", apptest.Filter("allowed_domains", domains))), []string{"beta"}},
			{"allowed_auth_methods repeated", slugs(apptest.Query("AND", apptest.Filter("allowed_auth_methods",
				slices.Repeat([]string{"sso"}, 1000)))), []string{"acme"}},
			{"organization_slugs x1000", slugs(apptest.Query("AND", apptest.Filter("organization_slugs",
				append(values("s%d", 999), "gamma")))), []string{"gamma"}},
			{"two operands of 500", slugs(apptest.Query("OR", apptest.Filter("allowed_domains", domains[500:]),
				apptest.Filter("claimed_email_domains", domains[:500]))), []string{"beta"}},
			{"repeats count once", slugs(apptest.Query("AND", apptest.Filter("allowed_domains", slices.Repeat(domains[600:], 3)),
				apptest.Filter("member_emails", slices.Repeat(append(values("x%d@beta.test", 599), "cy@beta.test"), 2)))), []string{"beta"}},
			{"member_roles x1000 with email assignments", members(map[string]any{"organization_ids": both,
				"query": apptest.Query("AND", apptest.Filter("member_roles", roles))["query"]}), []string{"ada@acme.test", "cy@beta.test"}},
			{"member_roles in 20 operands", members(map[string]any{"organization_ids": both,
				"query": apptest.Query("OR", slices.Repeat([]map[string]any{apptest.Filter("member_roles", roles[950:])}, 20)...)["query"]}),
				[]string{"ada@acme.test", "cy@beta.test"}},
			{"member_ids x1000", members(map[string]any{"organization_ids": both,
				"query": apptest.Query("AND", apptest.Filter("member_ids", ids))["query"]}), []string{"ada@acme.test"}},
		} {
			if !slices.Equal(tc.got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
			}
		}

		// The organization admin's own search (SDK; ada is an admin by
		// her email domain).
		tok, _, _ := e.Login(acme, "ada@acme.test")
		r := e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", apptest.Query("AND", apptest.Filter("member_roles", roles)), tok)
		apptest.Want(t, r, 200, "")
		if ms := r.Data()["members"].([]any); len(ms) != 1 || ms[0].(map[string]any)["email_address"] != "ada@acme.test" {
			t.Fatalf("SDK member_roles x1000: %s", r.Raw)
		}
	})
}

// One distinct value past the cap, however the operands split it, is a
// 400 naming the operand that crossed it, on all three searches.
func TestSearchValueCapRefusal(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		tok, _, admin := e.Login(acme, "ada@acme.test")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme+"/members/"+admin,
			map[string]any{"roles": []string{"stytch_admin"}}), 200, "")
		orgSearch := func(q map[string]any) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/organizations/search", q)
		}
		domains := values("d%d.test", 1000)

		wantFilterRefused(t, orgSearch(apptest.Query("AND", apptest.Filter("allowed_domains", append(domains, "one.more")))), "allowed_domains")
		wantFilterRefused(t, orgSearch(apptest.Query("OR", apptest.Filter("allowed_domains", domains[:600]),
			apptest.Filter("organization_slugs", values("s%d", 401)))), "organization_slugs")
		wantFilterRefused(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{acme},
			"query": apptest.Query("OR", slices.Repeat([]map[string]any{apptest.Filter("member_roles", values("r%d", 500))}, 3)...)["query"]}), "member_roles")
		r := e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", apptest.Query("AND",
			apptest.Filter("member_ids", values("member-test-%d", 1000)), apptest.Filter("member_emails", []string{"x@acme.test"})), tok)
		wantFilterRefused(t, r, "member_emails")
		// Within the cap, the same admin's search answers.
		r = e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", apptest.Query("AND",
			apptest.Filter("member_ids", append(values("member-test-%d", 999), admin))), tok)
		apptest.Want(t, r, 200, "")
		if ms := r.Data()["members"].([]any); len(ms) != 1 {
			t.Fatalf("SDK member_ids x1000: %s", r.Raw)
		}
	})
}
