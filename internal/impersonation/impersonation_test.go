package impersonation_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/cli"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/idp"
	"github.com/latchkey/latchkey/internal/impersonation"
)

const (
	impersonator = "support@latchkey-operator.test"
	sdkPath      = "/b2b/impersonation/authenticate"
	backendPath  = "/v1/b2b/impersonation/authenticate"
)

// mint is `latchkey member impersonate` for a member of org, through the
// function the CLI runs.
func mint(t *testing.T, e *apptest.Env, org, member string, tweak func(*impersonation.MintParams)) (*impersonation.Minted, error) {
	t.Helper()
	p := impersonation.MintParams{ProjectID: e.Project.Project.ID, OrganizationID: org, MemberID: member,
		ImpersonatorEmail: impersonator}
	if tweak != nil {
		tweak(&p)
	}
	return cli.Impersonate(context.Background(), e.App.Impersonation, e.App.Audit, p, "ticket 42")
}

func mustMint(t *testing.T, e *apptest.Env, org, member string) *impersonation.Minted {
	t.Helper()
	m, err := mint(t, e, org, member, nil)
	if err != nil {
		t.Fatalf("mint: %v", err)
	}
	return m
}

func redeemSDK(e *apptest.Env, token string) apptest.Resp {
	return e.SDK(http.MethodPost, sdkPath, map[string]any{"impersonation_token": token}, "")
}

func redeemBackend(e *apptest.Env, token string, extra map[string]any) apptest.Resp {
	body := map[string]any{"impersonation_token": token}
	for k, v := range extra {
		body[k] = v
	}
	return e.Backend(http.MethodPost, backendPath, body)
}

// memberSession is the answer's member_session.
func memberSession(t *testing.T, d map[string]any) (expires time.Time, factors []map[string]any) {
	t.Helper()
	ms, ok := d["member_session"].(map[string]any)
	if !ok {
		t.Fatalf("no member_session: %v", d)
	}
	exp, err := time.Parse(time.RFC3339, ms["expires_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ms["authentication_factors"].([]any) {
		factors = append(factors, f.(map[string]any))
	}
	return exp, factors
}

// An operator mints a login URL for a member; either face redeems it for a
// session whose one factor names the impersonator, for at most an hour,
// whatever the organization's auth-method and MFA policies say (they
// govern the members' own logins), and both steps are in the audit log.
func TestImpersonateOnBothFaces(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", map[string]any{"auth_methods": "RESTRICTED",
			"allowed_auth_methods": []string{"sso"}})
		e.SetMFA(org, "REQUIRED_FOR_ALL")
		mid := e.CreateMember(org, "ada@acme.test")
		start := e.Clock.Now()

		m := mustMint(t, e, org, mid)
		u, err := url.Parse(m.LoginURL)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if got := u.Scheme + "://" + u.Host + u.Path; got != apptest.Page || q.Get("stytch_token_type") != impersonation.TokenType ||
			q.Get("token") != m.Token || m.Token == "" {
			t.Fatalf("login url %s", m.LoginURL)
		}
		if !m.ExpiresAt.Equal(start.Add(impersonation.TokenTTL)) || m.ImpersonatorID != impersonator {
			t.Fatalf("minted %+v", m)
		}

		// The widget's call: a full session, never an IST, for an hour.
		r := redeemSDK(e, q.Get("token"))
		apptest.Want(t, r, 200, "")
		d := r.Data()
		if d["member_authenticated"] != true || d["intermediate_session_token"] != "" || d["member_id"] != mid ||
			d["session_token"] == "" || d["mfa_required"] != nil {
			t.Fatalf("sdk answer: %s", r.Raw)
		}
		exp, factors := memberSession(t, d)
		if !exp.Equal(start.Add(time.Hour)) {
			t.Errorf("expires_at %v, want an hour from now", exp)
		}
		if len(factors) != 1 || factors[0]["type"] != "impersonated" || factors[0]["delivery_method"] != "impersonation" {
			t.Fatalf("sdk factors: %v", factors)
		}
		// The browser SDK declares no impersonated_factor object.
		if _, ok := factors[0]["impersonated_factor"]; ok {
			t.Errorf("sdk face shows impersonated_factor: %v", factors[0])
		}

		// The backend face shows who impersonates; a shorter session is
		// honoured, a longer one capped.
		for _, c := range []struct{ asked, want int }{{30, 30}, {600, 60}} {
			r := redeemBackend(e, mustMint(t, e, org, mid).Token, map[string]any{"session_duration_minutes": c.asked})
			apptest.Want(t, r, 200, "")
			exp, factors := memberSession(t, r.Body)
			if !exp.Equal(start.Add(time.Duration(c.want) * time.Minute)) {
				t.Errorf("asked %d minutes: expires_at %v", c.asked, exp)
			}
			f, _ := factors[0]["impersonated_factor"].(map[string]any)
			if len(factors) != 1 || f["impersonator_id"] != impersonator || f["impersonator_email_address"] != impersonator {
				t.Fatalf("backend factors: %v", factors)
			}
		}
		apptest.Want(t, redeemBackend(e, mustMint(t, e, org, mid).Token, map[string]any{"session_duration_minutes": 1}),
			400, "invalid_session_duration")

		ctx := context.Background()
		created, _ := e.App.Audit.List(ctx, audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.ImpersonationTokenCreated})
		used, _ := e.App.Audit.List(ctx, audit.Filter{ProjectID: e.Project.Project.ID, Type: audit.MemberImpersonated})
		if len(created) != 4 || len(used) != 3 {
			t.Fatalf("%d tokens and %d impersonations audited, want 4 and 3", len(created), len(used))
		}
		c, u0 := byToken(created, m.TokenID), byToken(used, m.TokenID)
		if c.Actor != "cli" || c.MemberID != mid || c.OrganizationID != org || c.Details["reason"] != "ticket 42" ||
			c.Details["impersonation_token_id"] != m.TokenID || c.Details["impersonator_email_address"] != impersonator {
			t.Errorf("token event %+v", c)
		}
		if u0.Actor != "sdk" || u0.MemberID != mid || u0.Details["impersonator_email_address"] != impersonator ||
			u0.Details["impersonation_token_id"] != m.TokenID || u0.Details["member_session_id"] == "" {
			t.Errorf("impersonation event %+v", u0)
		}
		if raw, _ := json.Marshal(append(created, used...)); strings.Contains(string(raw), m.Token) {
			t.Fatalf("an audit event holds the token: %s", raw)
		}
	})
}

// byToken is the event about the token with id (the fake clock gives
// every event the same time, so the log's order says nothing).
func byToken(events []audit.Event, id string) audit.Event {
	for _, ev := range events {
		if ev.Details["impersonation_token_id"] == id {
			return ev
		}
	}
	return audit.Event{}
}

// An impersonated session is not extended by a refresh asking for more
// time, and no factor joins it: a login presenting it is refused before
// anything is spent.
func TestImpersonatedSessionsStayAsIssued(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		start := e.Clock.Now()
		r := redeemSDK(e, mustMint(t, e, org, mid).Token)
		apptest.Want(t, r, 200, "")
		token := r.Data()["session_token"].(string)

		e.Clock.Advance(10 * time.Minute)
		r = e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{"session_duration_minutes": 600}, token)
		apptest.Want(t, r, 200, "")
		if exp, _ := memberSession(t, r.Data()); !exp.Equal(start.Add(time.Hour)) {
			t.Errorf("after a refresh asking for 600 minutes: expires_at %v, want the original hour", exp)
		}
		// Asking for less than what is left still shortens it.
		r = e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{"session_duration_minutes": 20}, token)
		if exp, _ := memberSession(t, r.Data()); !exp.Equal(start.Add(30 * time.Minute)) {
			t.Errorf("after asking for 20 minutes: expires_at %v", exp)
		}

		e.SendLink(org, "ada@acme.test", nil)
		links, _ := e.LastMail("ada@acme.test")
		link := apptest.MagicLinkToken(t, links[0])
		apptest.Want(t, e.RedeemLink(link, map[string]any{"session_token": token}), 403, "unauthorized_action")
		// The refusal rolled the link's spend back.
		apptest.Want(t, e.RedeemLink(link, nil), 200, "")

		e.Clock.Advance(20 * time.Minute)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 404, "session_not_found")
	})
}

// A token works once, for TokenTTL, in its own project, for an active
// member of the organization it names; every other token is the same
// refusal.
func TestTokensAreSingleUseAndShortLived(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")

		m := mustMint(t, e, org, mid)
		apptest.Want(t, redeemBackend(e, m.Token, nil), 200, "")
		apptest.Want(t, redeemBackend(e, m.Token, nil), 401, "unable_to_auth_impersonation_token")
		apptest.Want(t, redeemSDK(e, m.Token), 401, "unable_to_auth_impersonation_token")

		m = mustMint(t, e, org, mid)
		e.Clock.Advance(impersonation.TokenTTL - time.Second)
		apptest.Want(t, redeemSDK(e, m.Token), 200, "")
		m = mustMint(t, e, org, mid)
		e.Clock.Advance(impersonation.TokenTTL)
		apptest.Want(t, redeemSDK(e, m.Token), 401, "unable_to_auth_impersonation_token")

		apptest.Want(t, redeemSDK(e, "not-a-token"), 401, "unable_to_auth_impersonation_token")
		apptest.Want(t, redeemSDK(e, ""), 400, "invalid_request")

		// Another project's token is unknown here.
		other := e.NewProject("Other")
		m = mustMint(t, e, org, mid)
		r := e.Do(http.MethodPost, backendPath, map[string]any{"impersonation_token": m.Token}, nil, other.Project.ID, other.Secret)
		apptest.Want(t, r, 401, "unable_to_auth_impersonation_token")
		apptest.Want(t, redeemBackend(e, m.Token, nil), 200, "")
	})
}

// Tokens are minted and redeemed only for active members, and a member's
// address change or reactivation spends the tokens minted before it.
func TestMembersMustBeActive(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		other := e.CreateOrg("globex", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		e.SessionFor(org, "ada@acme.test") // verifies the address: only then can ada be reactivated below

		for _, c := range []struct {
			name      string
			org, mid  string
			tweak     func(*impersonation.MintParams)
			wantError apierr.Type
		}{
			{"member of another organization", other, mid, nil, apierr.MemberNotFound},
			{"unknown member", org, "member-test-00000000-0000-4000-8000-000000000000", nil, apierr.MemberNotFound},
			{"bad impersonator", org, mid, func(p *impersonation.MintParams) { p.ImpersonatorEmail = "not an email" },
				apierr.InvalidRequest},
			{"unregistered redirect", org, mid, func(p *impersonation.MintParams) { p.RedirectURL = "https://evil.test/" },
				apierr.NoMatchForMagicLinkURL},
			// The impersonator id is copied into the session's factor and
			// the audit log: nothing blank, unbounded or that rewrites
			// what a terminal or log viewer shows.
			{"blank impersonator id", org, mid, func(p *impersonation.MintParams) { p.ImpersonatorID = " \t " },
				apierr.InvalidRequest},
			{"over-long impersonator id", org, mid, func(p *impersonation.MintParams) {
				p.ImpersonatorID = strings.Repeat("x", impersonation.MaxImpersonatorID+1)
			}, apierr.InvalidRequest},
			{"impersonator id with a line break", org, mid, func(p *impersonation.MintParams) { p.ImpersonatorID = "staff-1\nstaff-2" },
				apierr.InvalidRequest},
			{"impersonator id with an escape", org, mid, func(p *impersonation.MintParams) { p.ImpersonatorID = "staff-1\x1b[2K" },
				apierr.InvalidRequest},
			{"impersonator id with a bidi override", org, mid, func(p *impersonation.MintParams) { p.ImpersonatorID = "staff\u202e1-" },
				apierr.InvalidRequest},
			{"impersonator id not UTF-8", org, mid, func(p *impersonation.MintParams) { p.ImpersonatorID = "staff-\xff" },
				apierr.InvalidRequest},
		} {
			if _, err := mint(t, e, c.org, c.mid, c.tweak); !apierr.Is(err, c.wantError) {
				t.Errorf("%s: %v, want %s", c.name, err, c.wantError)
			}
		}
		if m, err := mint(t, e, org, mid, func(p *impersonation.MintParams) { p.RedirectURL = apptest.Page }); err != nil ||
			!strings.HasPrefix(m.LoginURL, apptest.Page+"?") {
			t.Errorf("registered redirect: %v %+v", err, m)
		}
		long := strings.Repeat("é", impersonation.MaxImpersonatorID)
		if m, err := mint(t, e, org, mid, func(p *impersonation.MintParams) { p.ImpersonatorID = long }); err != nil ||
			m.ImpersonatorID != long {
			t.Errorf("impersonator id of %d characters: %v %+v", impersonation.MaxImpersonatorID, err, m)
		}

		pending := mustMint(t, e, org, mid)
		e.DeleteMember(org, mid)
		apptest.Want(t, redeemSDK(e, pending.Token), 403, "inactive_member")
		if _, err := mint(t, e, org, mid, nil); !apierr.Is(err, apierr.InactiveMember) {
			t.Errorf("deleted member: %v", err)
		}
		// The refusal did not spend the token, but the reactivation does.
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid+"/reactivate", nil); r.Status != 200 {
			t.Fatalf("reactivate: %s", r.Raw)
		}
		apptest.Want(t, redeemSDK(e, pending.Token), 401, "unable_to_auth_impersonation_token")

		pending = mustMint(t, e, org, mid)
		r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid, map[string]any{"email_address": "eve@acme.test"})
		if r.Status != 200 {
			t.Fatalf("change address: %s", r.Raw)
		}
		apptest.Want(t, redeemSDK(e, pending.Token), 401, "unable_to_auth_impersonation_token")
		apptest.Want(t, redeemSDK(e, mustMint(t, e, org, mid).Token), 200, "")
	})
}

// Wrong tokens from one browser address are limited (RedeemPerIP); the
// customer's server, redeeming for all its users from one address, is
// not.
func TestRedemptionsAreRateLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		// A valid redemption gives its attempt back.
		apptest.Want(t, redeemSDK(e, mustMint(t, e, org, mid).Token), 200, "")
		for range impersonation.RedeemPerIP.Limit {
			apptest.Want(t, redeemSDK(e, "wrong"), 401, "unable_to_auth_impersonation_token")
		}
		m := mustMint(t, e, org, mid)
		apptest.Want(t, redeemSDK(e, m.Token), 429, "too_many_requests")
		for range 5 {
			apptest.Want(t, redeemBackend(e, "wrong", nil), 401, "unable_to_auth_impersonation_token")
		}
		apptest.Want(t, redeemBackend(e, m.Token, nil), 200, "")
	})
}

// An impersonated session cannot authorize a connected app, on either
// face: the app would get refresh tokens that outlive the visit's hour
// (and, for a first-party app with full_access, sessions of its own).
func TestImpersonatedSessionsCannotAuthorizeConnectedApps(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if err := idp.SetAuthorizationURL(context.Background(), e.App.DB, e.Clock, e.Project.Project.ID,
			"https://app.customer.test/authorize"); err != nil {
			t.Fatal(err)
		}
		r := e.Backend(http.MethodPost, "/v1/connected_apps/clients", map[string]any{"client_type": "first_party",
			"client_name": "RP", "redirect_urls": []string{"https://rp.test/cb"}, "post_logout_redirect_urls": []string{"https://rp.test/bye"}})
		apptest.Want(t, r, 200, "")
		clientID := r.Body["connected_app"].(map[string]any)["client_id"].(string)
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		r = redeemSDK(e, mustMint(t, e, org, mid).Token)
		apptest.Want(t, r, 200, "")
		token := r.Data()["session_token"].(string)

		req := map[string]any{"client_id": clientID, "redirect_uri": "https://rp.test/cb", "response_type": "code",
			"scopes": []string{"openid"}, "state": "st", "code_challenge": flowtoken.S256("a-verifier-of-forty-three-characters-or-more-x")}
		for _, path := range []string{"/idp/b2b/oauth/authorize/start", "/idp/b2b/oauth/authorize/submit"} {
			apptest.Want(t, e.SDK(http.MethodPost, path, req, token), 403, "unauthorized_action")
		}
		backend := map[string]any{"session_token": token}
		for k, v := range req {
			backend[k] = v
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/idp/oauth/authorize/start", backend), 403, "unauthorized_action")
		backend["consent_granted"] = true
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/idp/oauth/authorize", backend), 403, "unauthorized_action")

		// Under prompt=none the visit is no session: the app gets
		// login_required at its redirect URI, as without one.
		req["prompt"] = "none"
		r = e.SDK(http.MethodPost, "/idp/b2b/oauth/authorize/submit", req, token)
		apptest.Want(t, r, 200, "")
		if u, _ := url.Parse(r.Data()["redirect_uri"].(string)); u.Query().Get("error") != "login_required" {
			t.Fatalf("prompt=none with an impersonated session: %s", r.Raw)
		}
		// Logging out of the app still works.
		r = e.SDK(http.MethodPost, "/b2b/oauth/logout/start", map[string]any{"client_id": clientID,
			"post_logout_redirect_uri": "https://rp.test/bye", "state": "s"}, token)
		apptest.Want(t, r, 200, "")
	})
}

// An impersonated factor is the operator's visit, not the member proving
// themselves: it is never the recent factor that takeover-sensitive
// changes need (package stepup). Otherwise the visit could show the
// recovery codes, remove the member's authenticator app, or move the
// member's address to an inbox the operator controls, whose link would
// then log in as the member with an ordinary session long past the hour.
func TestImpersonatedSessionsCannotMakeTakeoverChanges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		e.EnrollTOTPWithSession(org, "ada@acme.test", nil)
		e.Clock.Advance(time.Hour)
		r := redeemSDK(e, mustMint(t, e, org, mid).Token)
		apptest.Want(t, r, 200, "")
		token := r.Data()["session_token"].(string)

		for name, change := range map[string]func() apptest.Resp{
			"recovery codes shown": func() apptest.Resp { return e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, token) },
			"own TOTP deleted": func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/organizations/members/deleteTOTP", nil, token)
			},
			"email update started": func() apptest.Resp {
				return e.StartEmailUpdate(token, "", map[string]any{"email_address": "operator@evil.test"})
			},
		} {
			if got := change(); got.Status < 400 {
				t.Errorf("%s from an impersonated session: %s", name, got.Raw)
			}
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 200, "")
	})
}

// A reason is recorded trimmed, up to MaxReason characters of any script;
// none given records none.
func TestCheckReasonAccepts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", impersonation.MaxReason)
	for in, want := range map[string]string{"": "", "  ticket 4711 ": "ticket 4711", long: long,
		"チケット 4711 (顧客の依頼)": "チケット 4711 (顧客の依頼)"} {
		if got, err := impersonation.CheckReason(in); err != nil || got != want {
			t.Errorf("CheckReason(%.20q) = %.20q, %v; want %.20q", in, got, err, want)
		}
	}
	if _, err := impersonation.CheckReason(long + "é"); !apierr.Is(err, apierr.InvalidRequest) {
		t.Errorf("a reason of %d characters: %v", impersonation.MaxReason+1, err)
	}
}
