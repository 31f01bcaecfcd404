package config

import (
	"slices"
	"testing"
)

// The known names are FromEnv's own: each variable it reads, the ones
// read after a parse step included.
func TestVariablesAreFromEnvs(t *testing.T) {
	got := Variables()
	for _, want := range []string{"LATCHKEY_ADDR", "LATCHKEY_BASE_URL", "LATCHKEY_TRUSTED_PROXIES", "LATCHKEY_BODY_LIMIT",
		"LATCHKEY_AUDIT_RETENTION", "LATCHKEY_GC_FLOOR_MIB", "LATCHKEY_ARGON2_PARALLELISM", "LATCHKEY_LOG_LEVEL"} {
		if !slices.Contains(got, want) {
			t.Errorf("Variables() lacks %s: %v", want, got)
		}
	}
	// Every name it gives is read: set to a value that cannot parse as
	// anything but a string, each changes what FromEnv returns or fails it.
	for _, name := range got {
		c, err := FromEnv(Defaults(), func(k string) (string, bool) { return "x", k == name })
		if err == nil && c == Defaults() {
			t.Errorf("%s is listed but FromEnv does not read it", name)
		}
	}
}

func TestUnknownVariables(t *testing.T) {
	known := Variables()
	environ := []string{"PATH=/bin", "LATCHKEY_TRUSTED_PROXY=10.0.0.0/8", "LATCHKEY_BASE_URL=https://a.example",
		"LATCHKEY_DATABSE_URL=x", "LATCHKEY_FROBNICATE=1", "LATCHKEY_TEST_POSTGRES_DSN=postgres://x", "LATCHKEY_OAUTH_CLIENT_SECRET=s"}
	got := UnknownVariables(environ, append(known, "LATCHKEY_OAUTH_CLIENT_SECRET"), []string{"LATCHKEY_TEST_"})
	want := []Unknown{{"LATCHKEY_TRUSTED_PROXY", "LATCHKEY_TRUSTED_PROXIES"}, {"LATCHKEY_DATABSE_URL", "LATCHKEY_DATABASE_URL"},
		{"LATCHKEY_FROBNICATE", ""}}
	if !slices.Equal(got, want) {
		t.Errorf("UnknownVariables = %v, want %v", got, want)
	}
}
