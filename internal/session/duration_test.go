package session_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
)

// DurationMinutes holds the SDK face to the project's maximum and leaves
// the backend face (and a Go caller without a request) the full range.
func TestDurationMinutesByFace(t *testing.T) {
	p := &project.Project{ID: "project-test-1", SessionDurationMinutes: 60, SDKMaxSessionDurationMinutes: 1440}
	sdk := project.WithCaller(context.Background(), project.Caller{Project: p})
	backend := project.WithCaller(context.Background(), project.Caller{Project: p, Backend: true})
	minutes := func(n int) *int { return &n }
	cases := []struct {
		name    string
		ctx     context.Context
		in      *int
		want    int
		refused bool
	}{
		{"SDK, none asked: the default", sdk, nil, 60, false},
		{"SDK, zero: the default", sdk, minutes(0), 60, false},
		{"SDK, at the maximum", sdk, minutes(1440), 1440, false},
		{"SDK, over the maximum", sdk, minutes(1441), 0, true},
		{"SDK, a year", sdk, minutes(527040), 0, true},
		{"SDK, under the range", sdk, minutes(4), 0, true},
		{"backend, a year", backend, minutes(527040), 527040, false},
		{"backend, over the range", backend, minutes(527041), 0, true},
		{"no caller, a year", context.Background(), minutes(527040), 527040, false},
	}
	for _, c := range cases {
		got, err := session.DurationMinutes(c.ctx, p, c.in)
		if c.refused != apierr.Is(err, apierr.InvalidSessionDuration) || got != c.want || (!c.refused && err != nil) {
			t.Errorf("%s: %d, %v; want %d, refused %v", c.name, got, err, c.want, c.refused)
		}
	}
}

// A project default longer than the SDK maximum (both are the operator's
// settings) is capped at that maximum on the SDK face when the login asks
// for no duration, so the SDK face never starts a session it would refuse
// to be asked for; the backend face (and a Go caller) keeps the default.
func TestDefaultDurationCappedOnTheSDKFace(t *testing.T) {
	p := &project.Project{ID: "project-test-1", SessionDurationMinutes: 10080, SDKMaxSessionDurationMinutes: 1440}
	sdk := project.WithCaller(context.Background(), project.Caller{Project: p})
	backend := project.WithCaller(context.Background(), project.Caller{Project: p, Backend: true})
	zero := 0
	cases := []struct {
		name string
		ctx  context.Context
		in   *int
		want int
	}{
		{"SDK, none asked", sdk, nil, 1440},
		{"SDK, zero", sdk, &zero, 1440},
		{"backend, none asked", backend, nil, 10080},
		{"backend, zero", backend, &zero, 10080},
		{"no caller, none asked", context.Background(), nil, 10080},
	}
	for _, c := range cases {
		if got, err := session.DurationMinutes(c.ctx, p, c.in); err != nil || got != c.want {
			t.Errorf("%s: %d, %v; want %d", c.name, got, err, c.want)
		}
	}
}

// The same through the API: with a week's default, an SDK login that asks
// for no duration gets a day's session, a backend login the week.
func TestDefaultDurationCappedOnTheSDKLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		week := 10080
		if _, err := e.App.Projects.Update(t.Context(), e.Project.Project.ID, project.Update{SessionDurationMinutes: &week}); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		expiry := func(body map[string]any) time.Duration {
			t.Helper()
			exp, err := time.Parse(time.RFC3339, body["member_session"].(map[string]any)["expires_at"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return exp.Sub(e.Clock.Now())
		}
		apptest.Want(t, e.SendCode(org, "ada@acme.test"), 200, "")
		_, codes := e.LastMail("ada@acme.test")
		r := e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@acme.test",
			"organization_id": org, "code": codes[0]}, "")
		apptest.Want(t, r, 200, "")
		if got, want := expiry(r.Data()), time.Duration(e.Project.Project.SDKMaxSessionDurationMinutes)*time.Minute; got != want {
			t.Errorf("SDK login without a duration: %v, want %v", got, want)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
			map[string]any{"organization_id": org, "email_address": "bob@acme.test"}), 200, "")
		_, codes = e.LastMail("bob@acme.test")
		r = e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate",
			map[string]any{"organization_id": org, "email_address": "bob@acme.test", "code": codes[0]})
		apptest.Want(t, r, 200, "")
		if got, want := expiry(r.Body), time.Duration(week)*time.Minute; got != want {
			t.Errorf("backend login without a duration: %v, want %v", got, want)
		}
	})
}

// Every SDK-face path that takes session_duration_minutes refuses one over
// the project's SDK maximum (invalid_session_duration, before spending a
// one-time secret), accepts the maximum, and follows a change of it; the
// backend face still takes up to a year.
func TestSDKSessionDurationIsCapped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const pw = "correct horse battery staple 1"
		max := e.Project.Project.SDKMaxSessionDurationMinutes
		if max != project.DefaultSDKMaxSessionDurationMinutes {
			t.Fatalf("a new project's SDK maximum is %d, want %d", max, project.DefaultSDKMaxSessionDurationMinutes)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		wantExpiry := func(r apptest.Resp, minutes int) {
			t.Helper()
			apptest.Want(t, r, 200, "")
			d := r.Data()
			if d == nil {
				d = r.Body
			}
			exp, _ := time.Parse(time.RFC3339, d["member_session"].(map[string]any)["expires_at"].(string))
			if want := e.Clock.Now().Add(time.Duration(minutes) * time.Minute); !exp.Equal(want) {
				t.Fatalf("expires_at %v, want %v", exp, want)
			}
		}

		// An email code: refused over the maximum, and the code still works.
		apptest.Want(t, e.SendCode(org, "ada@acme.test"), 200, "")
		_, codes := e.LastMail("ada@acme.test")
		code := func(minutes int) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@acme.test",
				"organization_id": org, "code": codes[0], "session_duration_minutes": minutes}, "")
		}
		apptest.Want(t, code(max+1), 400, "invalid_session_duration")
		apptest.Want(t, code(project.MaxSessionDurationMinutes), 400, "invalid_session_duration")
		r := code(max)
		wantExpiry(r, max)
		token := r.Data()["session_token"].(string)

		// The SDK's refresh cannot stretch the session either; the backend can.
		refresh := func(minutes int) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{"session_duration_minutes": minutes}, token)
		}
		apptest.Want(t, refresh(max+1), 400, "invalid_session_duration")
		wantExpiry(refresh(max), max)
		wantExpiry(e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token,
			"session_duration_minutes": project.MaxSessionDurationMinutes}), project.MaxSessionDurationMinutes)

		// A lower maximum applies at once, to every SDK login.
		lower := 30
		if _, err := e.App.Projects.Update(t.Context(), e.Project.Project.ID, project.Update{SDKMaxSessionDurationMinutes: &lower}); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, refresh(31), 400, "invalid_session_duration")
		wantExpiry(refresh(30), 30)

		e.SetPassword(org, "ada@acme.test", pw)
		password := map[string]any{"organization_id": org, "email_address": "ada@acme.test", "password": pw, "session_duration_minutes": 31}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/authenticate", password, ""), 400, "invalid_session_duration")
		wantExpiry(e.Backend(http.MethodPost, "/v1/b2b/passwords/authenticate", password), 31)

		apptest.Want(t, e.SendLink(org, "ada@acme.test", nil), 200, "")
		links, _ := e.LastMail("ada@acme.test")
		link := apptest.MagicLinkToken(t, links[0])
		apptest.Want(t, e.RedeemLink(link, map[string]any{"session_duration_minutes": 31}), 400, "invalid_session_duration")
		wantExpiry(e.RedeemLink(link, map[string]any{"session_duration_minutes": 30}), 30)

		other := e.CreateOrg("other", "ALL_ALLOWED", nil)
		e.CreateMember(other, "ada@acme.test")
		exchange := func(minutes int) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": other,
				"session_duration_minutes": minutes}, token)
		}
		apptest.Want(t, exchange(31), 400, "invalid_session_duration")

		ist := e.Discover("ada@acme.test")["intermediate_session_token"]
		discovered := func(minutes int) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
				"intermediate_session_token": ist, "organization_id": other, "session_duration_minutes": minutes}, "")
		}
		apptest.Want(t, discovered(31), 400, "invalid_session_duration")
		wantExpiry(discovered(30), 30)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{
			"intermediate_session_token": e.Discover("ada@acme.test")["intermediate_session_token"], "organization_name": "New Co",
			"session_duration_minutes": 31}, ""), 400, "invalid_session_duration")
	})
}
