package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectPasswordSettings(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "cli.db")
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Shop", "--redirect-url", "https://shop.test/auth")
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, errs)
	}
	var created map[string]string
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&created); err != nil {
		t.Fatal(err)
	}
	id := created["project_id"]
	code, out, errs = runCLI(t, db, "project", "update", "--project", id, "--password-policy", "luds",
		"--luds-min-length", "12", "--luds-complexity", "4", "--pkce-password-resets", "true")
	if code != 0 {
		t.Fatalf("update: exit %d: %s", code, errs)
	}
	for _, want := range []string{`"password_strength_policy":"luds"`, `"luds_min_password_length":12`,
		`"luds_min_password_complexity":4`, `"pkce_required_for_password_resets":true`} {
		if !strings.Contains(out, want) {
			t.Errorf("update output %s lacks %s", out, want)
		}
	}
	// Flags not given keep their values.
	code, out, _ = runCLI(t, db, "project", "update", "--project", id, "--luds-complexity", "2")
	if code != 0 || !strings.Contains(out, `"luds_min_password_length":12`) || !strings.Contains(out, `"password_strength_policy":"luds"`) {
		t.Fatalf("partial update: %s", out)
	}
	for _, bad := range [][]string{
		{"--password-policy", "strong"},
		{"--luds-min-length", "4"},
		{"--luds-min-length", "65"},
		{"--luds-complexity", "0"},
		{"--luds-complexity", "5"},
		{"--pkce-password-resets", "sometimes"},
	} {
		args := append([]string{"project", "update", "--project", id}, bad...)
		if code, _, errs := runCLI(t, db, args...); code == 0 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a failure with a message", bad, code, errs)
		}
	}
}
