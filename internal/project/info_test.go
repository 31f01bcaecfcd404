package project_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/m2m"
)

// debug.whoami names the project whose secret the caller used (the Node
// client's DebugWhoamiResponse).
func TestWhoamiNamesTheCallersProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Backend(http.MethodGet, "/v1/debug/whoami", nil)
		apptest.Want(t, r, 200, "")
		if r.Body["project_id"] != e.Project.Project.ID || r.Body["name"] != e.Project.Project.Name {
			t.Fatalf("whoami: %s, want project %s named %q", r.Raw, e.Project.Project.ID, e.Project.Project.Name)
		}
	})
}

// project.metrics counts the project's organizations, its members that
// are not deleted, and its M2M clients (the Node client's
// ProjectMetricsResponse), and nothing of another project.
func TestProjectMetricsCountsTheProject(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		metrics := func() map[string]float64 {
			t.Helper()
			r := e.Backend(http.MethodGet, "/v1/projects/metrics", nil)
			apptest.Want(t, r, 200, "")
			if r.Body["project_id"] != e.Project.Project.ID {
				t.Fatalf("project_id %v", r.Body["project_id"])
			}
			out := map[string]float64{}
			for _, m := range r.Body["metrics"].([]any) {
				m := m.(map[string]any)
				out[m["metric_type"].(string)] = m["count"].(float64)
			}
			return out
		}
		want := func(got map[string]float64, orgs, members, clients float64) {
			t.Helper()
			if got["ORGANIZATION_COUNT"] != orgs || got["MEMBER_COUNT"] != members || got["M2M_CLIENT_COUNT"] != clients || len(got) != 3 {
				t.Fatalf("metrics %v, want %v organizations, %v members, %v M2M clients", got, orgs, members, clients)
			}
		}
		want(metrics(), 0, 0, 0)
		acme := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		initech := e.CreateOrg("initech", "ALL_ALLOWED", nil)
		e.CreateMember(acme, "ada@acme.test")
		grace := e.CreateMember(acme, "grace@acme.test")
		e.CreateMember(initech, "peter@initech.test")
		e.DeleteMember(acme, grace)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/m2m/clients", map[string]any{"client_name": "Reporter", "scopes": []string{"read:reports"}}), 200, "")
		want(metrics(), 2, 2, 1)

		// Another project's counts are its own.
		other := e.NewProject("Other").Project.ID
		orgCounts, err := e.App.Orgs.ProjectCounts(t.Context(), other)
		if err != nil || orgCounts[0].Count != 0 || orgCounts[1].Count != 0 {
			t.Fatalf("another project's counts: %v %v", orgCounts, err)
		}
		clients, err := m2m.NewStore(e.App.DB, e.App.Clock).ProjectCounts(t.Context(), other)
		if err != nil || clients[0].Count != 0 {
			t.Fatalf("another project's M2M clients: %v %v", clients, err)
		}
	})
}
