package organization_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// aliasFixture is two organizations of the project, where one's slug is
// the other's external id (a pair no write makes any more, so it is put
// straight in SQL, as a database written before that rule may hold it),
// a member with an external id in each (the same
// external id: it is unique only per organization), and an organization
// of another project with a slug and an external id of its own.
type aliasFixture struct {
	acme, globex string // organization ids
	ada, grace   string // member ids: ada in acme, grace in globex, both external id "emp-1"
	// Another project, its organization initech (external id crm-initech)
	// and its member (external id emp-9).
	foreignProject, foreign, foreignMember string
}

func newAliasFixture(t *testing.T, e *apptest.Env) aliasFixture {
	t.Helper()
	var f aliasFixture
	f.acme = e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-acme"})
	// globex's external id is acme's slug: the external id must win.
	f.globex = e.CreateOrg("globex", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-globex"})
	if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET organization_external_id = 'acme' WHERE organization_id = $1`, f.globex); err != nil {
		t.Fatal(err)
	}
	create := func(org, email string) string {
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": email, "external_id": "emp-1"})
		apptest.Want(t, r, 200, "")
		return r.Body["member_id"].(string)
	}
	f.ada, f.grace = create(f.acme, "ada@acme.test"), create(f.globex, "grace@globex.test")
	mine := e.Project
	e.Project = e.NewProject("Someone Else's App")
	f.foreignProject = e.Project.Project.ID
	f.foreign = e.CreateOrg("initech", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-initech"})
	r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.foreign+"/members",
		map[string]any{"email_address": "peter@initech.test", "external_id": "emp-9"})
	apptest.Want(t, r, 200, "")
	f.foreignMember = r.Body["member_id"].(string)
	e.Project = mine
	return f
}

func TestResolveOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newAliasFixture(t, e)
		ctx, st := context.Background(), e.App.Orgs
		pid := e.Project.Project.ID
		for _, c := range []struct{ ref, want string }{
			{f.acme, f.acme},     // the id
			{"globex", f.globex}, // a slug
			{"crm-acme", f.acme}, // an external id
			{"acme", f.globex},   // acme's slug and globex's external id: the external id wins
		} {
			got, err := st.ResolveOrganization(ctx, st.DB().Read(), pid, c.ref)
			if err != nil || got != c.want {
				t.Errorf("ResolveOrganization(%q) = %q, %v; want %q", c.ref, got, err, c.want)
			}
		}
		// A reference spelled as an id is the id, without a lookup.
		unknown := "organization-test-00000000-0000-4000-8000-000000000000"
		if got, err := st.ResolveOrganization(ctx, st.DB().Read(), pid, unknown); err != nil || got != unknown {
			t.Errorf("an id = %q, %v; want it as it is", got, err)
		}
		// Unknown, empty, and another project's slug and external id: not found.
		for _, ref := range []string{"nope", "", "initech", "crm-initech", "organization-acme"} {
			if got, err := st.ResolveOrganization(ctx, st.DB().Read(), pid, ref); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("ResolveOrganization(%q) = %q, %v; want not found", ref, got, err)
			}
		}
		// The other project resolves its own, and not this one's.
		if got, err := st.ResolveOrganization(ctx, st.DB().Read(), f.foreignProject, "initech"); err != nil || got != f.foreign {
			t.Errorf("initech from its project = %q, %v; want %q", got, err, f.foreign)
		}
		if got, err := st.ResolveOrganization(ctx, st.DB().Read(), f.foreignProject, "acme"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("acme's slug from another project = %q, %v; want not found", got, err)
		}
	})
}

func TestResolveMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newAliasFixture(t, e)
		ctx, st := context.Background(), e.App.Orgs
		pid := e.Project.Project.ID
		for _, c := range []struct{ org, ref, want string }{
			{f.acme, f.ada, f.ada},       // the id
			{f.acme, "emp-1", f.ada},     // the external id, within acme
			{f.globex, "emp-1", f.grace}, // the same external id, within globex
		} {
			got, err := st.ResolveMember(ctx, st.DB().Read(), pid, c.org, c.ref)
			if err != nil || got != c.want {
				t.Errorf("ResolveMember(%s, %q) = %q, %v; want %q", c.org, c.ref, got, err, c.want)
			}
		}
		// A reference spelled as an id is the id without a lookup: the
		// route's own lookup by id decides (here: not a member of globex).
		if got, err := st.ResolveMember(ctx, st.DB().Read(), pid, f.globex, f.ada); err != nil || got != f.ada {
			t.Errorf("an id = %q, %v; want it as it is", got, err)
		}
		if got, err := st.ResolveMember(ctx, st.DB().Read(), f.foreignProject, f.foreign, "emp-9"); err != nil || got != f.foreignMember {
			t.Errorf("emp-9 from its project = %q, %v; want %q", got, err, f.foreignMember)
		}
		for _, c := range []struct{ project, org, ref string }{
			{pid, f.acme, "emp-2"},              // unknown
			{pid, f.acme, ""},                   // no reference
			{pid, "", "emp-1"},                  // no organization
			{pid, f.foreign, "emp-9"},           // another project's member
			{f.foreignProject, f.acme, "emp-1"}, // from another project
		} {
			if got, err := st.ResolveMember(ctx, st.DB().Read(), c.project, c.org, c.ref); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("ResolveMember(%s, %s, %q) = %q, %v; want not found", c.project, c.org, c.ref, got, err)
			}
		}
	})
}
