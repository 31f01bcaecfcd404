package session

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// FuzzVerifyJWT feeds the session JWT verifier arbitrary tokens next to a
// genuine one: it never panics, every refusal is errBadJWT, and the only
// token it accepts is the genuine one (RS256 signatures are deterministic,
// and any other spelling of the same parts is refused: compactjws).
func FuzzVerifyJWT(f *testing.F) {
	ctx := context.Background()
	db := storetest.SQLite(f)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clk := clock.NewFake(now)
	projects := project.NewStore(db, clk, secretbox.NewRandom())
	projects.UseKeySource(testkeys.Source)
	p, err := projects.Create(ctx, project.CreateParams{Name: "Fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	feed := changefeed.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s := New(db, clk, organization.NewStore(db, clk), projects, feed)
	const sessionID = "member-session-test-fuzz"
	ms := &MemberSession{MemberSessionID: sessionID, MemberID: "member-test-fuzz", OrganizationID: "organization-test-fuzz",
		StartedAt: now, LastAccessedAt: now, ExpiresAt: now.Add(time.Hour), Roles: []string{"stytch_member"}}
	genuine, err := s.sign(ctx, p.Project.ID, ms, now)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(genuine)
	f.Add(genuine[:len(genuine)-3])
	f.Add("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ4In0.")
	f.Add("eyJhbGciOiJIUzI1NiIsImtpZCI6IngifQ.e30.c2ln")
	f.Add("a.b.c.d.e")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		id, err := s.verify(ctx, p.Project.ID, token, now)
		if err != nil {
			if !errors.Is(err, errBadJWT) {
				t.Fatalf("verify(%q): %v is not errBadJWT", token, err)
			}
			return
		}
		if id != sessionID || token != genuine {
			t.Fatalf("verify(%q) accepted session %q", token, id)
		}
	})
}
