package proof

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/store"
)

const crashPassword = "correct horse battery staple 42"

type ackedMember struct{ id, email string }
type ackedSession struct{ token, memberID string }

// TestCrashKeepsAcknowledgedWrites drives concurrent sign-ups (members
// created with their password) and logins (sessions) against the real
// binary, kills it with SIGKILL mid-load, restarts it on the same
// database, and checks that every acknowledged member and session is there
// and that no member was left without the password written with it.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, dsn string) {
		env := baseEnv(dsn)
		proj := newProject(t, env)
		srv := start(t, env)
		ctx := context.Background()
		client := &http.Client{Timeout: 20 * time.Second}
		st, body, err := proj.call(ctx, client, srv.URL, http.MethodPost, "/v1/b2b/organizations",
			map[string]any{"organization_name": "Crash", "organization_slug": "crash-" + randHex(3)})
		if err != nil || st != 200 {
			t.Fatalf("create org: %d %v %v", st, body, err)
		}
		org := body["organization"].(map[string]any)["organization_id"].(string)
		hash, err := pwhash.Hash(t.Context(), crashPassword, pwhash.Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}

		var (
			mu       sync.Mutex
			members  []ackedMember
			sessions []ackedSession
			next     atomic.Int64
		)
		load, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for w := 0; w < 6; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for load.Err() == nil {
					email := "u" + randHex(4) + "-" + string(rune('a'+next.Add(1)%26)) + "@crash.test"
					st, b, err := proj.call(load, client, srv.URL, http.MethodPost, "/v1/b2b/passwords/migrate",
						map[string]any{"email_address": email, "organization_id": org, "hash": hash, "hash_type": "argon_2id"})
					if err != nil || st != 200 {
						continue // not acknowledged
					}
					mid, _ := b["member_id"].(string)
					mu.Lock()
					members = append(members, ackedMember{id: mid, email: email})
					mu.Unlock()
					st, b, err = proj.call(load, client, srv.URL, http.MethodPost, "/v1/b2b/passwords/authenticate",
						map[string]any{"email_address": email, "organization_id": org, "password": crashPassword,
							"session_duration_minutes": 60})
					if err != nil || st != 200 {
						continue
					}
					tok, _ := b["session_token"].(string)
					mu.Lock()
					sessions = append(sessions, ackedSession{token: tok, memberID: mid})
					mu.Unlock()
				}
			}()
		}
		// Kill once the load is well under way, with requests in flight.
		deadline := time.Now().Add(60 * time.Second)
		for {
			mu.Lock()
			n := len(sessions)
			mu.Unlock()
			if n >= 40 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		srv.kill()
		stop()
		wg.Wait()
		if len(sessions) < 10 {
			t.Fatalf("only %d sessions acknowledged before the kill:\n%s", len(sessions), srv.out)
		}
		t.Logf("killed after %d acknowledged sign-ups and %d logins", len(members), len(sessions))

		again := start(t, env)
		for _, m := range members {
			st, b, err := proj.call(ctx, client, again.URL, http.MethodGet, "/v1/b2b/organizations/members/dangerously_get/"+m.id, nil)
			if err != nil || st != 200 {
				t.Errorf("acknowledged member %s lost after the crash: %d %v %v", m.email, st, b, err)
			}
		}
		for _, s := range sessions {
			st, b, err := proj.call(ctx, client, again.URL, http.MethodPost, "/v1/b2b/sessions/authenticate",
				map[string]any{"session_token": s.token})
			if err != nil || st != 200 {
				t.Errorf("acknowledged session of %s lost after the crash: %d %v %v", s.memberID, st, b, err)
				continue
			}
			if got := b["member"].(map[string]any)["member_id"]; got != s.memberID {
				t.Errorf("session answers for member %v, want %s", got, s.memberID)
			}
		}
		checkNoHalfWrites(t, dsn, proj.ID, org)
	})
}

// checkNoHalfWrites reads the database itself: engine integrity, no
// member without the password that was written in the same request, no
// session without its member.
func checkNoHalfWrites(t *testing.T, dsn, projectID, org string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Dialect() == store.SQLite {
		var res string
		if err := db.Read().QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
			t.Errorf("SQLite integrity_check = %q, %v", res, err)
		}
	}
	var n int
	if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM members m WHERE m.organization_id = $1 AND NOT EXISTS
		(SELECT 1 FROM member_passwords p WHERE p.project_id = $2 AND p.email_address = m.email_address)`, org, projectID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d members were left without their password (a half-written sign-up)", n)
	}
	if err := db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM member_sessions s WHERE NOT EXISTS
		(SELECT 1 FROM members m WHERE m.member_id = s.member_id)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d sessions without their member", n)
	}
}
