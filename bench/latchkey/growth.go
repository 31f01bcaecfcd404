package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/store"
)

// addSessions inserts n more sessions of the member behind token's
// session, in batches, straight into the table (as years of logins would
// leave them).
func addSessions(ctx context.Context, s *server, orgID, memberID string, n int) error {
	now := store.Millis(time.Now())
	var prefix [8]byte
	_, _ = rand.Read(prefix[:])
	p := hex.EncodeToString(prefix[:])
	const batch = 500
	for done := 0; done < n; {
		k := min(batch, n-done)
		var sb strings.Builder
		args := make([]any, 0, k*3)
		for i := range k {
			if i > 0 {
				sb.WriteString(",")
			}
			j := len(args)
			fmt.Fprintf(&sb, "($%d,'%s','%s','%s',$%d,'[]',%d,%d,%d)", j+1, s.proj.Project.ID, orgID, memberID, j+2, now, now, now+int64(24*time.Hour/time.Millisecond))
			id := fmt.Sprintf("member-session-test-%s-%08d", p, done+i)
			args = append(args, id, fmt.Sprintf("%s%056d", p[:8], done+i))
		}
		if _, err := s.app.DB.ExecContext(ctx, `INSERT INTO member_sessions (member_session_id, project_id, organization_id,
			member_id, token_hash, authentication_factors, started_at, last_accessed_at, expires_at) VALUES `+sb.String(), args...); err != nil {
			return err
		}
		done += k
	}
	return nil
}

// addOrgs inserts n organizations of the project.
func addOrgs(ctx context.Context, s *server, from, n int) error {
	now := store.Millis(time.Now())
	const batch = 500
	for done := 0; done < n; {
		k := min(batch, n-done)
		var sb strings.Builder
		args := make([]any, 0, k*3)
		for i := range k {
			if i > 0 {
				sb.WriteString(",")
			}
			j := len(args)
			fmt.Fprintf(&sb, "($%d,$%d,$%d,$%d,%d,%d)", j+1, j+2, j+3, j+4, now, now)
			x := from + done + i
			args = append(args, fmt.Sprintf("organization-test-growth-%08d", x), s.proj.Project.ID,
				fmt.Sprintf("Growth %d", x), fmt.Sprintf("growth-%d", x))
		}
		if _, err := s.app.DB.ExecContext(ctx, `INSERT INTO organizations (organization_id, project_id, organization_name,
			organization_slug, created_at, updated_at) VALUES `+sb.String(), args...); err != nil {
			return err
		}
		done += k
	}
	return nil
}

func growthFigures(ctx context.Context, o options, rep *report, tmp string) error {
	if err := sessionGrowth(ctx, o, rep, filepath.Join(tmp, "growth-sessions.db")); err != nil {
		return err
	}
	return orgGrowth(ctx, o, rep, tmp)
}

func sessionGrowth(ctx context.Context, o options, rep *report, dsn string) error {
	s, err := startServer(ctx, dsn, nil)
	if err != nil {
		return err
	}
	defer s.close()
	org, err := s.createOrg("growth")
	if err != nil {
		return err
	}
	token, _, err := s.newSession(ctx, org, "growth@bench.test")
	if err != nil {
		return err
	}
	out, err := s.backend("/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
	if err != nil {
		return err
	}
	// The member's id from its object: the backend check's answer has no
	// top-level member_id (the Node client declares none).
	memberID, _ := out["member"].(map[string]any)["member_id"].(string)
	if memberID == "" {
		return fmt.Errorf("sessions/authenticate answered no member.member_id: %v", out)
	}
	l := load{url: s.base + "/v1/b2b/sessions/authenticate", user: s.proj.Project.ID, pass: s.proj.Secret,
		body: `{"session_token":"` + token + `"}`}
	have := 1
	var first float64
	for _, n := range o.growth {
		if n > have {
			start := time.Now()
			if err := addSessions(ctx, s, org, memberID, n-have); err != nil {
				return err
			}
			fmt.Printf("  (inserted %d sessions in %s)\n", n-have, time.Since(start).Round(time.Millisecond))
			have = n
		}
		r, err := measure(o.runs, l, o.connections, o.duration)
		if err != nil {
			return err
		}
		if first == 0 {
			first = r.rps
		}
		rep.add(fmt.Sprintf("growth: session check with %d sessions stored", n),
			fmt.Sprintf("%s, p99 %s (%.0f%% of the first)", kreq(r.rps), ms(r.p99ms), 100*r.rps/first), "flat", nil)
	}
	return nil
}

func orgGrowth(ctx context.Context, o options, rep *report, tmp string) error {
	sink, err := startSink()
	if err != nil {
		return err
	}
	defer sink.close()
	s, err := startServer(ctx, filepath.Join(tmp, "growth-orgs.db"), func(c *config.Config) { c.SMTPURL = "smtp://" + sink.addr() })
	if err != nil {
		return err
	}
	defer s.close()
	hash, err := pwhash.Hash(ctx, benchPassword, owasp())
	if err != nil {
		return err
	}
	have := 0
	for _, n := range o.orgGrowth {
		if n > have {
			if err := addOrgs(ctx, s, have, n-have); err != nil {
				return err
			}
			have = n
		}
		label := fmt.Sprintf("%d organizations", n)
		if err := emailRuns(ctx, o, rep, s, sink, "growth: "+label, 32, "flat"); err != nil {
			return err
		}
		l, err := s.passwordMember(fmt.Sprintf("growth-pw-%d", n), hash)
		if err != nil {
			return err
		}
		r, err := medianOf(o.runs, func() (result, error) { return loginRun(l, 8, o.duration) })
		if err != nil {
			return err
		}
		rep.add("growth: password logins, "+label, fmt.Sprintf("%.1f logins/s", r.rps), "flat", nil)
	}
	return nil
}
