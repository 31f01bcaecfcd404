package app_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Every method refuses the request fields it cannot honour (custom email
// templates, languages other than en, es, fr and pt-br) with
// unsupported_parameter, through httpapi.Decode, before it does anything
// else; the supported languages (in any spelling of their tags) and an
// unset field pass through to the method's own checks.
func TestEveryMethodRefusesWhatItCannotHonour(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		cases := []struct {
			name, path string
			body       map[string]any
			field      string
		}{
			{"password login", "/b2b/passwords/authenticate",
				map[string]any{"organization_id": org, "email_address": "ada@acme.test", "password": "x"}, "locale"},
			{"password reset start", "/b2b/passwords/email/reset/start",
				map[string]any{"organization_id": org, "email_address": "ada@acme.test"}, "reset_password_template_id"},
			{"email code send", "/b2b/otps/email/login_or_signup",
				map[string]any{"organization_id": org, "email_address": "ada@acme.test"}, "signup_template_id"},
			{"email code check", "/b2b/otps/email/authenticate",
				map[string]any{"organization_id": org, "email_address": "ada@acme.test", "code": "123456"}, "locale"},
			{"magic link send", "/b2b/magic_links/email/login_or_signup",
				map[string]any{"organization_id": org, "email_address": "ada@acme.test"}, "login_template_id"},
			{"discovery link send", "/b2b/magic_links/email/discovery/send",
				map[string]any{"email_address": "ada@acme.test"}, "locale"},
			{"discovery organizations", "/b2b/discovery/organizations", map[string]any{}, "login_template_id"},
			{"SMS code send", "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": "member-x"}, "locale"},
			{"SSO login", "/b2b/sso/authenticate", map[string]any{"sso_token": "sso-token-x"}, "locale"},
			{"OAuth login", "/b2b/oauth/authenticate", map[string]any{"oauth_token": "oauth-token-x"}, "locale"},
			// The widget sends its configured locale on both (spec section 7).
			{"magic link login", "/b2b/magic_links/authenticate", map[string]any{"magic_links_token": "token-x"}, "locale"},
			{"password reset", "/b2b/passwords/email/reset",
				map[string]any{"password_reset_token": "token-x", "password": apptest.StrongPassword}, "locale"},
		}
		for _, c := range cases {
			set := func(v string) map[string]any {
				b := map[string]any{c.field: v}
				for k, x := range c.body {
					b[k] = x
				}
				return b
			}
			value := "template-1"
			if c.field == "locale" {
				value = "de"
			}
			r := e.SDK(http.MethodPost, c.path, set(value), "")
			apptest.Want(t, r, http.StatusBadRequest, "unsupported_parameter")
			if msg, _ := r.Body["error_message"].(string); !strings.HasPrefix(msg, c.field+" ") {
				t.Fatalf("%s: the refusal does not name %s: %v", c.name, c.field, r.Body)
			}
			if c.field == "locale" {
				if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "en, es, fr, pt-br") {
					t.Fatalf("%s: the refusal does not list the supported locales: %v", c.name, r.Body)
				}
				for _, ok := range []string{"en-GB", "es", "fr_CA", "pt-BR", "PT"} {
					if r := e.SDK(http.MethodPost, c.path, set(ok), ""); r.ErrType() == "unsupported_parameter" {
						t.Fatalf("%s: %s refused: %v", c.name, ok, r.Body)
					}
				}
			}
			if r := e.SDK(http.MethodPost, c.path, c.body, ""); r.ErrType() == "unsupported_parameter" {
				t.Fatalf("%s: refused without the field: %v", c.name, r.Body)
			}
		}
	})
}
