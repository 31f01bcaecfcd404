package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/impersonation"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// `member impersonate` prints a login URL on the project's login redirect
// URL carrying a fresh token, and files the audit event with it; refusals
// print an error and mint nothing.
func TestMemberImpersonate(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "imp.db")
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Shop", "--redirect-url", "https://shop.test/auth")
	if code != 0 {
		t.Fatalf("create project: %s", errs)
	}
	var p map[string]string
	_ = json.Unmarshal([]byte(out), &p)
	orgID, memberID := seedMember(t, db, p["project_id"])

	code, out, errs = runCLI(t, db, "member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID,
		"--impersonator", "Support@Operator.test", "--reason", "ticket 7")
	if code != 0 {
		t.Fatalf("impersonate: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "multi_tenant_impersonation&token=") {
		t.Fatalf("the login URL cannot be pasted as printed: %s", out)
	}
	var minted map[string]any
	if err := json.Unmarshal([]byte(out), &minted); err != nil {
		t.Fatalf("output is not JSON: %q", out)
	}
	url, _ := minted["login_url"].(string)
	token, _ := minted["impersonation_token"].(string)
	if token == "" || url != "https://shop.test/auth?stytch_token_type=multi_tenant_impersonation&token="+token ||
		minted["impersonator_email_address"] != "support@operator.test" {
		t.Fatalf("minted %s", out)
	}

	d, _ := openStore(t, db)
	events, err := audit.New(d, clock.Real{}).List(context.Background(), audit.Filter{ProjectID: p["project_id"],
		Type: audit.ImpersonationTokenCreated})
	if err != nil || len(events) != 1 || events[0].MemberID != memberID || events[0].Details["reason"] != "ticket 7" ||
		events[0].Details["impersonation_token_id"] != minted["impersonation_token_id"] {
		t.Fatalf("audit: %v %+v", err, events)
	}
	if raw, _ := json.Marshal(events[0]); strings.Contains(string(raw), token) {
		t.Fatalf("the audit event holds the token: %s", raw)
	}

	for _, bad := range [][]string{
		{"member"},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", "member-test-missing", "--impersonator", "a@b.test"},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--redirect", "https://evil.test/"},
		// An impersonator id given blank, or that a terminal would act on.
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--impersonator-id", ""},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--impersonator-id", "   "},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--impersonator-id", "staff-1\x1b]8;;https://evil.test\x07"},
		// A reason the audit log would show as a second line, or that
		// rewrites the terminal of whoever reads it, or bounds nothing.
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--reason", "ticket 7\nimpersonation_token_created actor=root"},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--reason", "ticket 7\x1b[2K\x1b[1A"},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--reason", "ticket \u202e7 tekcit"},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--reason", "ticket \xff"},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--reason", strings.Repeat("x", impersonation.MaxReason+1)},
		{"member", "impersonate", "--project", p["project_id"], "--org", orgID, "--member", memberID, "--impersonator", "a@b.test",
			"--reason", " \u200b "},
	} {
		code, _, errs := runCLI(t, db, bad...)
		if code == 0 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a failure with a message", bad, code, errs)
		}
		if slices.Contains(bad, "--impersonator-id") && !strings.Contains(errs, "impersonator") {
			t.Errorf("%q: the error does not say the impersonator id is at fault: %s", bad, errs)
		}
		if slices.Contains(bad, "--reason") && !strings.Contains(errs, "reason") {
			t.Errorf("%q: the error does not say the reason is at fault: %s", bad, errs)
		}
	}
	var n int
	if err := d.Read().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM impersonation_tokens`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("tokens stored: %d %v, want only the first", n, err)
	}
}

// seedMember creates an organization with one active member (the CLI
// manages neither; the backend API does).
func seedMember(t *testing.T, db, projectID string) (orgID, memberID string) {
	t.Helper()
	d, _ := openStore(t, db)
	orgs := organization.NewStore(d, clock.Real{})
	ctx := context.Background()
	name := "Acme"
	org, err := orgs.Create(ctx, projectID, ids.Test, organization.Settings{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	var m *organization.Member
	err = d.Tx(ctx, func(q store.Querier) error {
		m, err = orgs.CreateMember(ctx, q, org, ids.Test, organization.NewMember{Email: "ada@acme.test", Status: organization.StatusActive})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return org.OrganizationID, m.MemberID
}
