package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
