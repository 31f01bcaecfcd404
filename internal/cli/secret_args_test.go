package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// A client secret may begin with "-" (a random base64url secret does one
// time in 64), and the flag package takes it as --client-secret's value all
// the same. Typed unquoted with a space, its second half is then a stray
// word right after the value, and must not be echoed any more than after a
// value that begins otherwise.
func TestStrayWordAfterADashSecretNotEchoed(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "secret.db")
	id, _ := createProject(t, db)
	args := []string{"project", "oauth", "--project", id, "--provider", "github", "--client-id", "a",
		"--client-secret", "-Sec3ret-first", "Other-half"}
	code, out, errs := runCLI(t, db, args...)
	if code != 2 || out != "" || !strings.Contains(errs, "--client-secret") ||
		strings.Contains(errs, "half") || strings.Contains(errs, "first") {
		t.Fatalf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming the flag and neither word", args[8:], code, out, errs)
	}
}

// The second half of an unquoted secret may itself begin with "-": the
// flag package then reads it as an unknown flag and its error names it.
// That refusal must not echo it either.
func TestUnknownFlagAfterASecretNotEchoed(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "secret.db")
	id, _ := createProject(t, db)
	for _, args := range [][]string{
		{"project", "oauth", "--project", id, "--provider", "github", "--client-id", "a",
			"--client-secret", "Sec3ret-first", "-other-half"},
		{"project", "oauth", "--project", id, "--provider", "github", "--client-id", "a",
			"--client-secret=Sec3ret-first", "-other-half"},
	} {
		code, out, errs := runCLI(t, db, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "--client-secret") ||
			strings.Contains(errs, "half") || strings.Contains(errs, "first") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming the flag and neither word", args[8:], code, out, errs)
		}
	}
}
