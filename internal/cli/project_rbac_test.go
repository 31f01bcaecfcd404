package cli

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/organization"
)

// rbac set validates the whole document and replaces the custom part in
// one step: a bad file changes nothing; get prints what set stored.
func TestProjectRBACCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "cli.db")
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Docs")
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var created map[string]string
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	id := created["project_id"]
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"resources":[{"resource_id":"documents","description":"Docs","actions":["read","write"]}],
		"roles":[{"role_id":"editor","description":"Edits","permissions":[{"resource_id":"documents","actions":["*"]}]}],
		"scopes":[{"scope":"read:documents","description":"Read","permissions":[{"resource_id":"documents","actions":["read"]}]}]}`)
	if code, _, errs := runCLI(t, db, "project", "rbac", "set", "--project", id, "--file", good); code != 0 {
		t.Fatalf("set: %s", errs)
	}
	for name, text := range map[string]string{
		"unknown action":  `{"resources":[{"resource_id":"documents","actions":["read"]}],"roles":[{"role_id":"r","permissions":[{"resource_id":"documents","actions":["write"]}]}]}`,
		"reserved prefix": `{"resources":[{"resource_id":"stytch.files","actions":["read"]}]}`,
		"unknown field":   `{"resources":[],"rolez":[]}`,
		"not json":        `resources: []`,
		"duplicate roles": `{"roles":[{"role_id":"a"},{"role_id":"a"}]}`,
	} {
		if code, _, errs := runCLI(t, db, "project", "rbac", "set", "--project", id, "--file", write("bad.json", text)); code == 0 || errs == "" {
			t.Errorf("%s: accepted", name)
		}
	}
	code, out, _ = runCLI(t, db, "project", "rbac", "get", "--project", id)
	if code != 0 || !strings.Contains(out, `"editor"`) || !strings.Contains(out, `"read:documents"`) || strings.Contains(out, "stytch_admin") {
		t.Fatalf("get after refused sets: %s", out)
	}
	code, out, _ = runCLI(t, db, "project", "rbac", "get", "--project", id, "--effective")
	if code != 0 || !strings.Contains(out, "stytch_admin") || !strings.Contains(out, `"editor"`) {
		t.Fatalf("get --effective: %s", out)
	}
	if code, _, _ := runCLI(t, db, "project", "rbac", "get", "--project", "project-test-nope"); code == 0 {
		t.Error("get for an unknown project succeeded")
	}
	if code, _, _ := runCLI(t, db, "project", "rbac", "set", "--project", id); code == 0 {
		t.Error("set without --file succeeded")
	}
}

// A set that removes a role still assigned is refused, listing where, and
// changes nothing; with --force it removes the assignments with the role
// in the same transaction and lists them.
func TestProjectRBACSetRemovingAnAssignedRole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "cli.db")
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Docs")
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var created map[string]string
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	id := created["project_id"]
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	withEditor := write("editor.json", `{"resources":[{"resource_id":"documents","actions":["read","write"]}],
		"roles":[{"role_id":"editor","permissions":[{"resource_id":"documents","actions":["*"]}]}]}`)
	without := write("none.json", `{"resources":[{"resource_id":"documents","actions":["read","write"]}]}`)
	if code, _, errs := runCLI(t, db, "project", "rbac", "set", "--project", id, "--file", withEditor); code != 0 {
		t.Fatalf("set: %s", errs)
	}

	// The server's view of the same database: an organization assigning
	// editor by email domain, and a member holding it.
	ctx := context.Background()
	cfg := config.Defaults()
	cfg.DatabaseURL, cfg.EncryptionKey = db, testKey
	a, err := app.New(ctx, cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p, err := a.Projects.ByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	name := "Acme"
	org, err := a.Orgs.Create(ctx, id, p.Env, organization.Settings{Name: &name,
		RBACEmailImplicitRoleAssignments: &[]organization.RoleAssignment{{RoleID: "editor", Domain: "acme.test"}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.Orgs.CreateMember(ctx, a.DB, org, p.Env, organization.NewMember{Email: "eve@acme.test",
		Status: organization.StatusActive, Roles: []string{"editor", "stytch_admin"}})
	if err != nil {
		t.Fatal(err)
	}

	code, _, errs = runCLI(t, db, "project", "rbac", "set", "--project", id, "--file", without)
	if code == 0 || !strings.Contains(errs, "member "+m.MemberID) || !strings.Contains(errs, "rbac_email_implicit_role_assignments (acme.test)") ||
		!strings.Contains(errs, "--force") {
		t.Fatalf("set removing an assigned role: exit %d: %s", code, errs)
	}
	if _, out, _ := runCLI(t, db, "project", "rbac", "get", "--project", id); !strings.Contains(out, `"editor"`) {
		t.Fatalf("the refused set changed the policy: %s", out)
	}

	code, out, errs = runCLI(t, db, "project", "rbac", "set", "--project", id, "--file", without, "--force")
	if code != 0 || strings.Contains(out, "editor") || strings.Count(errs, "removed assignment: editor") != 2 {
		t.Fatalf("set --force: exit %d: %s %s", code, out, errs)
	}
	o, err := a.Orgs.Get(ctx, id, org.OrganizationID)
	if err != nil || len(o.RBACEmailImplicitRoleAssignments) != 0 {
		t.Fatalf("email assignments after --force: %v %v", o, err)
	}
	m, err = a.Orgs.Member(ctx, a.DB.Read(), id, m.MemberID)
	if err != nil || !slices.Equal(m.ExplicitRoles(), []string{"stytch_admin"}) {
		t.Fatalf("member roles after --force: %v %v", m.ExplicitRoles(), err)
	}
}
