package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectIDPAuthorizationURL(t *testing.T) {
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
	code, out, errs = runCLI(t, db, "project", "update", "--project", id, "--idp-authorization-url", "https://shop.test/oauth/authorize")
	if code != 0 || !strings.Contains(out, `"idp_authorization_url":"https://shop.test/oauth/authorize"`) {
		t.Fatalf("update: exit %d: %s %s", code, out, errs)
	}
	if code, out, _ = runCLI(t, db, "project", "update", "--project", id, "--name", "Shop 2"); code != 0 ||
		!strings.Contains(out, `"idp_authorization_url":"https://shop.test/oauth/authorize"`) {
		t.Fatalf("other updates keep the URL: %s", out)
	}
	for _, bad := range []string{"shop.test/authorize", "https://shop.test/a#frag", "ftp://shop.test/a", "https://shop.test/a?x=1"} {
		if code, _, errs := runCLI(t, db, "project", "update", "--project", id, "--idp-authorization-url", bad); code == 0 || errs == "" {
			t.Errorf("%s: exit %d, stderr %q", bad, code, errs)
		}
	}
	if code, out, _ = runCLI(t, db, "project", "update", "--project", id, "--idp-authorization-url", "-"); code != 0 ||
		!strings.Contains(out, `"idp_authorization_url":""`) {
		t.Fatalf("clear: %s", out)
	}
}
