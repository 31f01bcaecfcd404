package organization_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// claimedOf reads an organization's claimed_email_domains on the backend
// face, as JSON.
func claimedOf(t *testing.T, e *apptest.Env, orgID string) string {
	t.Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+orgID, nil)
	if r.Status != 200 {
		t.Fatalf("get %s: %s", orgID, r.Raw)
	}
	raw, _ := json.Marshal(r.Body["organization"].(map[string]any)["claimed_email_domains"])
	return string(raw)
}

// The backend sets claimed_email_domains on create and update, normalised
// (trimmed, lower case, repeats merged) and checked like allowed domains;
// email_allowed_domains, whatever the JIT setting, claims nothing.
func TestClaimedDomainsAreABackendSetting(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		walled := e.CreateOrg("walled", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"walled.test"}})
		if got := claimedOf(t, e, walled); got != `[]` {
			t.Fatalf("a RESTRICTED organization's allowed domains were reported claimed: %s", got)
		}
		acme := e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{" Acme.TEST", "acme.test", "acme.example"}})
		if got := claimedOf(t, e, acme); got != `["acme.test","acme.example"]` {
			t.Fatalf("created with claimed_email_domains = %s", got)
		}
		path := "/v1/b2b/organizations/" + acme
		r := e.Backend(http.MethodPut, path, map[string]any{"claimed_email_domains": []string{"acme.example"}})
		apptest.Want(t, r, 200, "")
		if got, _ := json.Marshal(r.Body["organization"].(map[string]any)["claimed_email_domains"]); string(got) != `["acme.example"]` {
			t.Fatalf("update answered claimed_email_domains = %s", got)
		}
		// An update that does not send the list keeps it.
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"organization_name": "Acme Inc"}), 200, "")
		if got := claimedOf(t, e, acme); got != `["acme.example"]` {
			t.Fatalf("after an update of other fields: %s", got)
		}

		for _, c := range []struct {
			domains []string
			errType string
		}{
			{[]string{"not a domain"}, "organization_settings_invalid_claimed_domain"},
			{[]string{""}, "organization_settings_invalid_claimed_domain"},
			{[]string{"acme.test", "@acme.test"}, "organization_settings_invalid_claimed_domain"},
			{[]string{"Gmail.com"}, "organization_settings_claimed_domain_too_common"},
		} {
			apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"claimed_email_domains": c.domains}), 400, c.errType)
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "New",
				"claimed_email_domains": c.domains}), 400, c.errType)
		}
		if got := claimedOf(t, e, acme); got != `["acme.example"]` {
			t.Fatalf("a refused update changed the claims: %s", got)
		}
		if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_slug = 'new'`); n != 0 {
			t.Fatalf("a refused create left %d organizations", n)
		}
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"claimed_email_domains": []string{}}), 200, "")
		if got := claimedOf(t, e, acme); got != `[]` {
			t.Fatalf("cleared claims = %s", got)
		}
	})
}

// A domain has one claimant per project: another organization's claim is
// organization_settings_duplicate_claimed_domain, on create and update,
// until the claimant lets go (update or deletion). Re-sending one's own
// claims is no conflict, and other projects are unaffected.
func TestClaimedDomainsAreUniqueInTheProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		first := e.CreateOrg("first", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"shared.test", "first.test"}})
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+first,
			map[string]any{"claimed_email_domains": []string{"first.test", "shared.test"}}), 200, "")

		r := e.Backend(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Second", "organization_slug": "second",
			"claimed_email_domains": []string{"second.test", "SHARED.test"}})
		apptest.Want(t, r, 400, "organization_settings_duplicate_claimed_domain")
		if d, _ := r.Body["error_details"].(map[string]any); d["domain"] != "shared.test" {
			t.Fatalf("error_details = %v", r.Body["error_details"])
		}
		if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_slug = 'second'`); n != 0 {
			t.Fatalf("a refused create left %d organizations", n)
		}
		second := e.CreateOrg("second", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"second.test"}})
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+second,
			map[string]any{"claimed_email_domains": []string{"second.test", "shared.test"}}), 400, "organization_settings_duplicate_claimed_domain")
		if got := claimedOf(t, e, second); got != `["second.test"]` {
			t.Fatalf("a refused update changed the claims: %s", got)
		}

		// Released by an update, the domain can be claimed again.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+first,
			map[string]any{"claimed_email_domains": []string{"first.test"}}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+second,
			map[string]any{"claimed_email_domains": []string{"second.test", "shared.test"}}), 200, "")
		// Released by deletion too.
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+first, nil), 200, "")
		e.CreateOrg("third", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"first.test"}})

		// Another project claims independently.
		other := e.NewProject("Other")
		r = e.Do(http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Elsewhere",
			"claimed_email_domains": []string{"shared.test"}}, nil, other.Project.ID, other.Secret)
		apptest.Want(t, r, 200, "")
	})
}

// Two concurrent claims of one domain: one wins, the other is refused
// (PostgreSQL, where the two transactions really overlap).
func TestConcurrentClaimsOfOneDomain(t *testing.T) {
	e := apptest.New(t, apptest.Postgres(t), nil)
	orgs := []string{e.CreateOrg("one", "NOT_ALLOWED", nil), e.CreateOrg("two", "NOT_ALLOWED", nil)}
	domains := []string{"contested.test"}
	errs := make([]error, len(orgs))
	var wg sync.WaitGroup
	for i, id := range orgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.App.Orgs.Update(t.Context(), e.Project.Project.ID, id, organization.Settings{ClaimedEmailDomains: &domains})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !apierr.Is(err, apierr.DuplicateClaimedDomain):
			t.Fatalf("update: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d organizations claimed the domain (errors %v)", won, errs)
	}
	if n := e.Count(`SELECT COUNT(*) FROM organization_claimed_domains WHERE domain = 'contested.test'`); n != 1 {
		t.Fatalf("%d claim rows", n)
	}
}

// Only the project secret sets claims: the SDK face drops the field as it
// drops trusted_metadata, and a backend call acting for a member session
// is refused as for trusted_metadata.
func TestClaimedDomainsAreNotSetForMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		r := e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "Acme Corp",
			"claimed_email_domains": []string{"bigcorp.test"}}, f.Admin)
		apptest.Want(t, r, 200, "")
		if _, shown := r.Data()["organization"].(map[string]any)["claimed_email_domains"]; shown {
			t.Fatalf("the SDK face shows claimed domains: %s", r.Raw)
		}
		if got := claimedOf(t, e, f.Acme); got != `[]` {
			t.Fatalf("the browser claimed %s", got)
		}
		apptest.Want(t, e.BackendAs(http.MethodPut, "/v1/b2b/organizations/"+f.Acme, map[string]any{"claimed_email_domains": []string{"bigcorp.test"}},
			organization.MemberSessionHeader, f.Admin), 403, "unauthorized_action")
		if got := claimedOf(t, e, f.Acme); got != `[]` {
			t.Fatalf("a member session claimed %s", got)
		}
	})
}

func TestClaimedEmailDomainsSearchFilter(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.CreateOrg("alpha", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"alpha.test", "alpha.example"}})
		e.CreateOrg("beta", "NOT_ALLOWED", map[string]any{"claimed_email_domains": []string{"beta.test"}})
		// Allowed, even under RESTRICTED JIT, is not claimed.
		e.CreateOrg("gamma", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"alpha.test", "gamma.test"}})
		for _, c := range []struct {
			name string
			body map[string]any
			want []string
		}{
			{"one", apptest.Query("AND", apptest.Filter("claimed_email_domains", []string{"Alpha.TEST"})), []string{"alpha"}},
			{"any of", apptest.Query("AND", apptest.Filter("claimed_email_domains", []string{"beta.test", "alpha.example"})), []string{"alpha", "beta"}},
			{"exact", apptest.Query("AND", apptest.Filter("claimed_email_domains", []string{"lpha.test", "gamma.test"})), nil},
			{"with another filter", apptest.Query("OR", apptest.Filter("claimed_email_domains", []string{"beta.test"}),
				apptest.Filter("allowed_domains", []string{"gamma.test"})), []string{"beta", "gamma"}},
		} {
			if got := slugsOf(e, c.body); !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
		for _, v := range []any{[]string{}, nil} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/search", apptest.Query("AND", apptest.Filter("claimed_email_domains", v))),
				400, "organization_search_missing_claimed_email_domains")
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/search", apptest.Query("AND", apptest.Filter("claimed_email_domains", "alpha.test"))),
			400, "invalid_request")
	})
}
