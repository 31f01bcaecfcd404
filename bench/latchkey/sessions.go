package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// newSession creates a member of org and a session for it, as a login
// would end (session.Complete), and returns the token and JWT.
func (s *server) newSession(ctx context.Context, orgID, email string) (string, string, error) {
	out, err := s.backend("/v1/b2b/organizations/"+orgID+"/members", map[string]any{"email_address": email})
	if err != nil {
		return "", "", err
	}
	memberID := out["member_id"].(string)
	pid := s.proj.Project.ID
	org, err := s.app.Orgs.Get(ctx, pid, orgID)
	if err != nil {
		return "", "", err
	}
	m, err := s.app.Orgs.Member(ctx, s.app.DB.Read(), pid, memberID)
	if err != nil {
		return "", "", err
	}
	var resp *session.AuthResponse
	err = s.app.DB.Tx(ctx, func(q store.Querier) error {
		var err error
		resp, err = s.app.Sessions.Complete(ctx, q, session.CompleteParams{Project: s.proj.Project, Organization: org, Member: m,
			DurationMinutes: 7 * 24 * 60, MethodID: m.EmailID,
			Factor: session.Factor{DeliveryMethod: "email", Type: "otp",
				EmailFactor: &session.EmailFactor{EmailID: m.EmailID, EmailAddress: m.EmailAddress}}})
		return err
	})
	if err != nil {
		return "", "", err
	}
	return resp.SessionToken, resp.SessionJWT, nil
}

// bareServer is the yardstick: a net/http handler that reads a JSON body
// and writes 1 KB of JSON, with nothing else.
func bareServer() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	payload := map[string]any{"request_id": "request-id-test-00000000-0000-0000-0000-000000000000", "status_code": 200,
		"padding": strings.Repeat("x", 900)}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, _ := json.Marshal(payload)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// sessionFigures measures session checks on one engine: by token on both
// faces and by JWT, and (on SQLite) the bare handler in the same run.
func sessionFigures(ctx context.Context, o options, rep *report, engine, dsn string, withBare bool) error {
	s, err := startServer(ctx, dsn, nil)
	if err != nil {
		return err
	}
	defer s.close()
	org, err := s.createOrg("bench")
	if err != nil {
		return err
	}
	token, jwt, err := s.newSession(ctx, org, "bench@bench.test")
	if err != nil {
		return err
	}
	pid, secret, pub := s.proj.Project.ID, s.proj.Secret, s.proj.PublicToken
	backend := load{url: s.base + "/v1/b2b/sessions/authenticate", user: pid, pass: secret, body: `{"session_token":"` + token + `"}`}
	byJWT := load{url: s.base + "/v1/b2b/sessions/authenticate", user: pid, pass: secret, body: `{"session_jwt":"` + jwt + `"}`}
	sdk := load{url: s.base + "/sdk/v1/b2b/sessions/authenticate", user: pub, pass: token, body: `{}`}
	var bare result
	if withBare {
		u, stop, err := bareServer()
		if err != nil {
			return err
		}
		defer stop()
		if bare, err = measure(o.runs, load{url: u, body: `{"session_token":"` + token + `"}`}, o.connections, o.duration); err != nil {
			return err
		}
		rep.add("bare net/http handler (read JSON, write 1 KB)",
			fmt.Sprintf("%s, p99 %s, %.3f ms CPU/req", kreq(bare.rps), ms(bare.p99ms), bare.cpuMsPR), "yardstick", nil)
	}
	// The backend check by token, by JWT and the SDK face are measured in
	// turn, so they are compared seconds apart (see measureInTurn).
	rs, ratios, err := measureInTurn(o.runs, []load{backend, byJWT, sdk}, o.connections, o.duration)
	if err != nil {
		return fmt.Errorf("session checks: %w", err)
	}
	jwtR, jwtRatio := rs[1], median(ratios[1])
	for _, x := range []struct {
		name string
		r    result
	}{{"backend face", rs[0]}, {"SDK face", rs[2]}} {
		r := x.r
		res := fmt.Sprintf("%s, p99 %s, %.3f ms CPU/req", kreq(r.rps), ms(r.p99ms), r.cpuMsPR)
		if engine == "SQLite" {
			met := r.rps >= 20000 && r.p99ms < 10 && (bare.rps == 0 || r.rps > bare.rps/2)
			if bare.rps > 0 {
				res += fmt.Sprintf(" (%.0f%% of bare)", 100*r.rps/bare.rps)
			}
			rep.add("session check by token, "+x.name+", SQLite", res, "≥ 20,000 req/s, p99 < 10 ms, > 50% of bare", ptr(met))
		} else {
			rep.add("session check by token, "+x.name+", PostgreSQL", res, "≥ 10,000 req/s", ptr(r.rps >= 10000))
		}
	}
	rep.add("session check by session_jwt, backend face, "+engine,
		fmt.Sprintf("%s, p99 %s, %.3f ms CPU/req (%.0f%% of the token's, run by run: %s)", kreq(jwtR.rps), ms(jwtR.p99ms), jwtR.cpuMsPR, 100*jwtRatio, percents(ratios[1])),
		"≥ the token figure", ptr(jwtRatio >= 1))
	return nil
}
