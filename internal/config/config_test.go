package config

import (
	"strings"
	"testing"
)

func TestFromEnvAndValidate(t *testing.T) {
	env := map[string]string{
		"LATCHKEY_DATABASE_URL": "postgres://u@127.0.0.1/db",
		"LATCHKEY_BASE_URL":     "https://auth.example.com/",
		"LATCHKEY_SMTP_URL":     "smtp://u:p@127.0.0.1:2525",
	}
	c, err := FromEnv(Defaults(), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://auth.example.com" || c.DatabaseURL != env["LATCHKEY_DATABASE_URL"] || !c.SecureCookies() {
		t.Fatalf("unexpected config %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
}

func TestValidateReportsAllProblemsWithoutSecrets(t *testing.T) {
	c := Defaults()
	c.BaseURL = "localhost:8080"
	c.SMTPURL = "mailto://user:hunter2@x"
	c.Addr = ""
	err := c.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	msg := err.Error()
	for _, want := range []string{"listen address", "LATCHKEY_BASE_URL", "LATCHKEY_SMTP_URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %s", msg, want)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Errorf("error leaks the SMTP password: %q", msg)
	}
}
