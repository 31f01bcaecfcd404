package organization_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// slugOf and externalIDOf read an organization on the backend face.
func slugOf(t *testing.T, e *apptest.Env, ref string) (id, slug, external any) {
	t.Helper()
	r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+ref, nil)
	if r.Status != 200 {
		t.Fatalf("get %s: %s", ref, r.Raw)
	}
	o := r.Body["organization"].(map[string]any)
	return o["organization_id"], o["organization_slug"], o["organization_external_id"]
}

// A slug and an external id are one namespace per project, on every write
// that sets either: the backend's create and update, and an admin's
// organizations/me (discovery's create: internal/discovery). A refused
// write changes nothing, and the external id still names the customer's
// own organization.
func TestSlugAndExternalIDAreOneNamespace(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture() // acme (admin ada) and beta
		victim := e.CreateOrg("victim", "NOT_ALLOWED", map[string]any{"organization_external_id": "acme-corp"})
		// Each path tries a name of its own, held by an organization of its
		// own, and is checked on its own (Errorf): one let through does not
		// hide another.
		e.CreateOrg("h2-slug", "NOT_ALLOWED", nil)
		e.CreateOrg("h3", "NOT_ALLOWED", map[string]any{"organization_external_id": "h3-ext"})
		e.CreateOrg("h4-slug", "NOT_ALLOWED", nil)
		e.CreateOrg("h5", "NOT_ALLOWED", map[string]any{"organization_external_id": "h5-ext"})
		refused := func(what string, r apptest.Resp, errType string) {
			t.Helper()
			if r.Status != 400 || r.ErrType() != errType {
				t.Errorf("%s: %d %q, want 400 %q: %s", what, r.Status, r.ErrType(), errType, r.Raw)
			}
		}
		create := func(body map[string]any) apptest.Resp {
			body["organization_name"] = "Someone"
			return e.Backend(http.MethodPost, "/v1/b2b/organizations", body)
		}
		acme := "/v1/b2b/organizations/" + f.Acme
		refused("backend create, slug = an external id", create(map[string]any{"organization_slug": "acme-corp"}), "organization_slug_already_used")
		refused("backend create, external id = a slug", create(map[string]any{"organization_slug": "other", "organization_external_id": "h2-slug"}),
			"organization_external_id_already_used")
		refused("backend update, slug = an external id", e.Backend(http.MethodPut, acme, map[string]any{"organization_slug": "h3-ext"}),
			"organization_slug_already_used")
		refused("backend update, external id = a slug", e.Backend(http.MethodPut, acme, map[string]any{"organization_external_id": "h4-slug"}),
			"organization_external_id_already_used")
		refused("SDK organizations/me, slug = an external id", e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_slug": "h5-ext"}, f.Admin),
			"organization_slug_already_used")
		if t.Failed() {
			t.FailNow()
		}
		if id, slug, ext := slugOf(t, e, "acme-corp"); id != victim || slug != "victim" || ext != "acme-corp" {
			t.Fatalf("acme-corp names %v (slug %v, external id %v), want the victim %s", id, slug, ext, victim)
		}
		if _, slug, ext := slugOf(t, e, f.Acme); slug != "acme" || ext != nil {
			t.Fatalf("acme after refused writes: slug %v, external id %v", slug, ext)
		}
		if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_slug IN ('acme-corp', 'h3-ext', 'h5-ext')
			OR organization_external_id IN ('h2-slug', 'h4-slug')`); n != 0 {
			t.Fatalf("%d organizations took another's name", n)
		}

		// An organization's slug may be its own external id: one name. It
		// stays its name while either field holds it.
		apptest.Want(t, e.Backend(http.MethodPut, acme, map[string]any{"organization_external_id": "acme"}), 200, "")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_slug": "acme-inc"}, f.Admin), 200, "")
		beta := "/v1/b2b/organizations/" + f.Beta
		apptest.Want(t, e.Backend(http.MethodPut, beta, map[string]any{"organization_slug": "acme"}), 400, "organization_slug_already_used")
		apptest.Want(t, e.Backend(http.MethodPut, beta, map[string]any{"organization_external_id": "acme-inc"}), 400, "organization_external_id_already_used")
		// A name let go, by a change or a deletion, is free for either use.
		apptest.Want(t, e.Backend(http.MethodPut, acme, map[string]any{"organization_external_id": "crm-acme"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, beta, map[string]any{"organization_slug": "acme"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+victim, nil), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, acme, map[string]any{"organization_slug": "acme-corp", "organization_external_id": "victim"}), 200, "")

		// Another project's names are its own.
		e.Project = e.NewProject("Someone Else's App")
		e.CreateOrg("acme-inc", "NOT_ALLOWED", map[string]any{"organization_external_id": "acme-corp"})
	})
}

// The resolution order, with a slug equal to another organization's
// external id already in the database (written before the rule; here
// straight in SQL): the external id wins, so the customer's backend still
// reaches its own organization, and the older organization can still be
// updated as long as it keeps its slug.
func TestResolutionPrefersTheExternalIDOfAnOlderCollision(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		victim := e.CreateOrg("victim", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-victim"})
		squat := e.CreateOrg("squat", "NOT_ALLOWED", nil)
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET organization_slug = 'acme-corp' WHERE organization_id = $1`, squat); err != nil {
			t.Fatal(err)
		}
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET organization_external_id = 'acme-corp' WHERE organization_id = $1`, victim); err != nil {
			t.Fatal(err)
		}
		st := e.App.Orgs
		if got, err := st.ResolveOrganization(t.Context(), st.DB().Read(), e.Project.Project.ID, "acme-corp"); err != nil || got != victim {
			t.Fatalf("ResolveOrganization(acme-corp) = %q, %v; want the external id's %s", got, err, victim)
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/acme-corp/members", map[string]any{"email_address": "boss@victim.test", "is_admin": true})
		if m, _ := r.Body["member"].(map[string]any); r.Status != 200 || m["organization_id"] != victim {
			t.Fatalf("members create by external id: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+squat, map[string]any{"organization_name": "Squat Inc"}), 200, "")
		if id, slug, _ := slugOf(t, e, squat); id != squat || slug != "acme-corp" {
			t.Fatalf("the older organization: %v, slug %v", id, slug)
		}
	})
}

// Two concurrent writes taking one name, one as a slug and one as an
// external id: one wins, the other is refused (PostgreSQL, where the two
// transactions really overlap).
func TestConcurrentSlugAndExternalIDOfOneName(t *testing.T) {
	e := apptest.New(t, apptest.Postgres(t), nil)
	one, two := e.CreateOrg("one", "NOT_ALLOWED", nil), e.CreateOrg("two", "NOT_ALLOWED", nil)
	name := "contested"
	sets := []struct {
		org string
		set organization.Settings
	}{{one, organization.Settings{Slug: &name}}, {two, organization.Settings{ExternalID: &name}}}
	for range 5 {
		errs := make([]error, len(sets))
		var wg sync.WaitGroup
		for i, s := range sets {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = e.App.Orgs.Update(t.Context(), e.Project.Project.ID, s.org, s.set)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !apierr.Is(err, apierr.OrganizationSlugUsed) && !apierr.Is(err, apierr.OrganizationExternalIDUsed):
				t.Fatalf("update: %v", err)
			}
		}
		if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_slug = $1 OR organization_external_id = $1`, name); won != 1 || n != 1 {
			t.Fatalf("%d writes won, %d organizations hold %q (errors %v)", won, n, name, errs)
		}
		// Free the name for the next round.
		one1, two1 := "one", ""
		for _, s := range []struct {
			org string
			set organization.Settings
		}{{one, organization.Settings{Slug: &one1}}, {two, organization.Settings{ExternalID: &two1}}} {
			if _, err := e.App.Orgs.Update(t.Context(), e.Project.Project.ID, s.org, s.set); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Migration 0111 fills organization_aliases from a database written
// before it, collisions included: the name goes to the external id's
// organization, the slug's keeps its slug, and nobody else can take it.
// The test writes the older state and replays 0111.
func TestAliasesFromBeforeTheRule(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		victim := e.CreateOrg("victim", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-victim"})
		squat := e.CreateOrg("squat", "NOT_ALLOWED", nil)
		solo := e.CreateOrg("solo", "NOT_ALLOWED", map[string]any{"organization_external_id": "solo"})
		ctx := t.Context()
		undoAliasRelease(t, e.App.DB) // 0115 came after 0111
		for _, stmt := range []string{
			`DROP TABLE organization_aliases`,
			`DELETE FROM schema_migrations WHERE version = '0111'`,
			`UPDATE organizations SET organization_slug = 'acme-corp' WHERE organization_id = '` + squat + `'`,
			`UPDATE organizations SET organization_external_id = 'acme-corp' WHERE organization_id = '` + victim + `'`,
		} {
			if _, err := e.App.DB.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		if err := e.App.DB.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		for alias, want := range map[string]string{"acme-corp": victim, "victim": victim, "solo": solo} {
			if n := e.Count(`SELECT COUNT(*) FROM organization_aliases WHERE alias = $1 AND organization_id = $2`, alias, want); n != 1 {
				t.Errorf("alias %s: %d rows of %s", alias, n, want)
			}
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+squat, map[string]any{"organization_name": "Squat Inc"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+solo, map[string]any{"organization_external_id": "acme-corp"}),
			400, "organization_external_id_already_used")
		// The victim lets the external id go; the older organization still
		// holds it as a slug, so a third cannot take it as an external id.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+victim, map[string]any{"organization_external_id": "crm-victim"}), 200, "")
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+solo, map[string]any{"organization_external_id": "acme-corp"}),
			400, "organization_external_id_already_used")
	})
}
