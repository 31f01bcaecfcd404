package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/oauth2-proxy/mockoidc"
)

// b2b/oauth/authenticate takes locale like every other login route
// (api-reference): a login that texts the member's MFA code by itself
// texts it in the request's language, and a language the codes are not
// written in is refused before the token is spent, as the magic-link,
// email-code, password and SSO logins do.
func TestOAuthLoginTextsItsMFACodeInTheRequestLocale(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org, mid := e.MFAMember()
		const num = "+14155550177"
		ist, _ := e.MFALogin(org, "ada@secure.test")
		apptest.Want(t, e.SMSSend(org, mid, ist, num), 200, "")
		apptest.Want(t, e.SMSAuth(org, mid, ist, e.LastSMS(num), nil), 200, "")
		ada := &mockoidc.MockUser{Subject: "g-ada", Email: "ada@secure.test", EmailVerified: true}

		// French: the code the login texts by itself is in French.
		r := authenticateWith(t, e, callbackOf(t, e, m, "google", org, ada), map[string]any{"locale": "fr"})
		apptest.Want(t, r, 200, "")
		if req, _ := r.Data()["mfa_required"].(map[string]any); req == nil || req["secondary_auth_initiated"] != "sms_otp" {
			t.Fatalf("login did not text a code: %v", r.Data())
		}
		msgs, err := e.App.Outbox.List(context.Background(), num, 1)
		if err != nil || len(msgs) == 0 {
			t.Fatalf("no text to %s: %v", num, err)
		}
		if want := "est votre code de vérification Secure."; !strings.Contains(msgs[0].Text, want) {
			t.Errorf("the login's code is not in French: %q", msgs[0].Text)
		}

		// German is refused, like every other login route refuses it.
		r = authenticateWith(t, e, callbackOf(t, e, m, "google", org, ada), map[string]any{"locale": "de"})
		apptest.Want(t, r, http.StatusBadRequest, "unsupported_parameter")
	})
}

// authenticateWith redeems the token a successful callback carried, with
// extra fields.
func authenticateWith(t *testing.T, e *apptest.Env, cb apptest.Resp, extra map[string]any) apptest.Resp {
	t.Helper()
	if cb.Status != http.StatusFound {
		t.Fatalf("callback: %d %s", cb.Status, cb.Raw)
	}
	u, err := url.Parse(cb.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"oauth_token": u.Query().Get("token")}
	for k, v := range extra {
		body[k] = v
	}
	return e.SDK(http.MethodPost, "/b2b/oauth/authenticate", body, "")
}
