package app_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/impersonation"
)

// raceN is how many concurrent redemptions each one-time secret gets.
const raceN = 50

// race sends n copies of a redemption at once and fails unless exactly
// one succeeds and every other answer is a refusal from the catalogue
// (never a server error).
func race(t *testing.T, what string, n int, redeem func() apptest.Resp) {
	t.Helper()
	answers := map[string]int{}
	for _, r := range apptest.Together(n, func(int) apptest.Resp { return redeem() }) {
		key := r.ErrType()
		if r.Status == 200 {
			key = "ok"
		} else if r.Status >= 500 || key == "" {
			key = "BAD " + string(r.Raw)
		}
		answers[key]++
	}
	if answers["ok"] != 1 {
		t.Fatalf("%s: %d concurrent redemptions gave %d successes, want exactly 1: %v", what, n, answers["ok"], answers)
	}
	for k := range answers {
		if len(k) > 4 && k[:4] == "BAD " {
			t.Fatalf("%s: a redemption failed badly: %v", what, answers)
		}
	}
}

// Every one-time secret is single use under concurrency, on both engines:
// of 50 simultaneous redemptions exactly one succeeds.
func TestOneTimeSecretsRaces(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)

		t.Run("magic link", func(t *testing.T) {
			e.CreateMember(org, "link@acme.test")
			if r := e.SendLink(org, "link@acme.test", nil); r.Status != 200 {
				t.Fatalf("send: %s", r.Raw)
			}
			links, _ := e.LastMail("link@acme.test")
			token := apptest.MagicLinkToken(t, links[0])
			race(t, "magic link", raceN, func() apptest.Resp { return e.RedeemLink(token, nil) })
		})

		t.Run("email code", func(t *testing.T) {
			e.CreateMember(org, "code@acme.test")
			if r := e.SendCode(org, "code@acme.test"); r.Status != 200 {
				t.Fatalf("send: %s", r.Raw)
			}
			_, codes := e.LastMail("code@acme.test")
			race(t, "email code", raceN, func() apptest.Resp { return e.CheckCode(org, "code@acme.test", codes[0]) })
		})

		t.Run("password reset token", func(t *testing.T) {
			e.CreateMember(org, "reset@acme.test")
			e.SetPassword(org, "reset@acme.test", apptest.StrongPassword)
			if r := e.ResetStart(org, "reset@acme.test", nil); r.Status != 200 {
				t.Fatalf("reset start: %s", r.Raw)
			}
			token := e.ResetLink("reset@acme.test", "multi_tenant_passwords")
			race(t, "reset token", raceN, func() apptest.Resp { return e.ResetWith(token, apptest.StrongPassword+" again", nil) })
		})

		t.Run("discovery token", func(t *testing.T) {
			if r := e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", map[string]any{"email_address": "disc@acme.test"}, ""); r.Status != 200 {
				t.Fatalf("discovery send: %s", r.Raw)
			}
			links, _ := e.LastMail("disc@acme.test")
			token := apptest.LinkToken(t, links[0], apptest.Page, "discovery")
			race(t, "discovery token", raceN, func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/magic_links/discovery/authenticate", map[string]any{"discovery_magic_links_token": token}, "")
			})
		})

		t.Run("intermediate session token", func(t *testing.T) {
			e.CreateMember(org, "ist@acme.test")
			ist := e.Discover("ist@acme.test")["intermediate_session_token"].(string)
			race(t, "IST exchange", raceN, func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
					"organization_id": org, "session_duration_minutes": 60}, "")
			})
		})

		t.Run("impersonation token", func(t *testing.T) {
			mid := e.CreateMember(org, "imp@acme.test")
			m, err := e.App.Impersonation.Mint(context.Background(), impersonation.MintParams{ProjectID: e.Project.Project.ID,
				OrganizationID: org, MemberID: mid, ImpersonatorEmail: "support@operator.test"})
			if err != nil {
				t.Fatalf("mint: %v", err)
			}
			race(t, "impersonation token", raceN, func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/impersonation/authenticate", map[string]any{"impersonation_token": m.Token}, "")
			})
		})

		secure := e.CreateOrg("secure", "NOT_ALLOWED", nil)
		e.SetMFA(secure, "REQUIRED_FOR_ALL")

		t.Run("sms code", func(t *testing.T) {
			mid := e.CreateMember(secure, "sms@secure.test")
			ist, _ := e.MFALogin(secure, "sms@secure.test")
			if r := e.SMSSend(secure, mid, ist, "+14155550100"); r.Status != 200 {
				t.Fatalf("sms send: %s", r.Raw)
			}
			code := e.LastSMS("+14155550100")
			race(t, "sms code", raceN, func() apptest.Resp { return e.SMSAuth(secure, mid, ist, code, nil) })
		})

		t.Run("totp code and recovery code", func(t *testing.T) {
			mid := e.CreateMember(secure, "totp@secure.test")
			r := e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": secure, "member_id": mid})
			if r.Status != 200 {
				t.Fatalf("totp create: %s", r.Raw)
			}
			secret := r.Body["secret"].(string)
			codes := r.Body["recovery_codes"].([]any)
			ist, _ := e.MFALogin(secure, "totp@secure.test")
			code := apptest.TOTPAt(t, secret, e.Clock.Now())
			race(t, "totp code", raceN, func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/totp/authenticate", map[string]any{"organization_id": secure, "member_id": mid, "code": code,
					"intermediate_session_token": ist, "session_duration_minutes": 60}, "")
			})

			ist, _ = e.MFALogin(secure, "totp@secure.test")
			race(t, "recovery code", raceN, func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", map[string]any{"organization_id": secure, "member_id": mid,
					"recovery_code": codes[0], "intermediate_session_token": ist, "session_duration_minutes": 60}, "")
			})
		})
	})
}
