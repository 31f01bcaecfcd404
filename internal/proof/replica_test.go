package proof

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/syncbuf"
)

// mailpit is a real SMTP server with an HTTP API to read what arrived.
type mailpit struct{ smtp, api string }

func startMailpit(t *testing.T) mailpit {
	t.Helper()
	bin := os.Getenv("LATCHKEY_TEST_MAILPIT")
	if bin == "" {
		bin = filepath.Join("..", "..", "bin", "mailpit")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the replica proof needs Mailpit: set LATCHKEY_TEST_MAILPIT (make test builds bin/mailpit): %v", err)
	}
	mp := mailpit{smtp: freeAddr(t), api: "http://" + freeAddr(t)}
	cmd := exec.Command(bin, "--smtp", mp.smtp, "--listen", mp.api[len("http://"):], "--database",
		filepath.Join(t.TempDir(), "mailpit.db"), "--disable-version-check", "--smtp-disable-rdns")
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if res, err := http.Get(mp.api + "/api/v1/messages"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return mp
			}
		}
	}
	t.Fatalf("mailpit did not start:\n%s", out)
	return mp
}

var sixDigits = regexp.MustCompile(`\b(\d{6})\b`)

// lastCode returns the code in the newest message to addr.
func (mp mailpit) lastCode(t *testing.T, addr string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var list struct {
			Messages []struct{ ID string } `json:"messages"`
		}
		if err := getJSON(mp.api+"/api/v1/search?query="+url.QueryEscape("to:"+addr), &list); err != nil || len(list.Messages) == 0 {
			continue
		}
		var msg struct{ Text string }
		if err := getJSON(mp.api+"/api/v1/message/"+list.Messages[0].ID, &msg); err != nil {
			continue
		}
		if m := sixDigits.FindStringSubmatch(msg.Text); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no code arrived for %s", addr)
	return ""
}

func getJSON(u string, v any) error {
	res, err := http.Get(u)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("%s: %d", u, res.StatusCode)
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// TestReplicasShareState runs three `latchkey serve` processes on one
// PostgreSQL database: a code sent through the first is redeemed through
// the second, the session is checked and revoked through the third (and
// then refused by the others), and a send limit holds across all three.
func TestReplicasShareState(t *testing.T) {
	t.Parallel()
	dsn := pgDatabase(t)
	mp := startMailpit(t)
	env := baseEnv(dsn, "LATCHKEY_SMTP_URL=smtp://"+mp.smtp, "LATCHKEY_EMAIL_FROM=Proof <login@proof.test>")
	proj := newProject(t, env)
	r := []*server{start(t, env), start(t, env), start(t, env)}
	ctx := context.Background()
	client := &http.Client{Timeout: 20 * time.Second}
	call := func(i int, method, path string, body any) (int, map[string]any) {
		t.Helper()
		st, b, err := proj.call(ctx, client, r[i].URL, method, path, body)
		if err != nil {
			t.Fatalf("replica %d %s: %v", i+1, path, err)
		}
		return st, b
	}
	st, b := call(0, http.MethodPost, "/v1/b2b/organizations", map[string]any{"organization_name": "Replicas",
		"organization_slug": "replicas-" + randHex(3), "email_jit_provisioning": "NOT_ALLOWED"})
	if st != 200 {
		t.Fatalf("create org: %d %v", st, b)
	}
	org := b["organization"].(map[string]any)["organization_id"].(string)
	for _, email := range []string{"ada@replicas.test", "bob@replicas.test"} {
		if st, b := call(1, http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{"email_address": email}); st != 200 {
			t.Fatalf("create member: %d %v", st, b)
		}
	}

	// Sent through the first, redeemed through the second.
	if st, b := call(0, http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
		map[string]any{"email_address": "ada@replicas.test", "organization_id": org}); st != 200 {
		t.Fatalf("send through replica 1: %d %v", st, b)
	}
	code := mp.lastCode(t, "ada@replicas.test")
	st, b = call(1, http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@replicas.test",
		"organization_id": org, "code": code, "session_duration_minutes": 60})
	if st != 200 {
		t.Fatalf("redeem through replica 2: %d %v", st, b)
	}
	token := b["session_token"].(string)
	if st, _ := call(0, http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@replicas.test",
		"organization_id": org, "code": code}); st == 200 {
		t.Fatal("the code was redeemed twice, on replicas 2 and 1")
	}

	// Checked and revoked through the third, then refused everywhere.
	if st, b := call(2, http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token}); st != 200 {
		t.Fatalf("check through replica 3: %d %v", st, b)
	}
	for _, i := range []int{0, 1} { // warm the other replicas' caches first
		if st, b := call(i, http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token}); st != 200 {
			t.Fatalf("check through replica %d: %d %v", i+1, st, b)
		}
	}
	if st, b := call(2, http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": token}); st != 200 {
		t.Fatalf("revoke through replica 3: %d %v", st, b)
	}
	for i := range r {
		deadline := time.Now().Add(5 * time.Second)
		for {
			st, _ := call(i, http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
			if st != 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d still accepts the session 5 s after replica 3 revoked it", i+1)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// The per-email send limit (5 per 10 minutes) holds across replicas.
	sent, refused := 0, 0
	for i := 0; i < 9; i++ {
		st, b := call(i%3, http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
			map[string]any{"email_address": "bob@replicas.test", "organization_id": org})
		switch {
		case st == 200:
			sent++
		case st == http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("send %d: %d %v", i, st, b)
		}
	}
	if sent != 5 || refused != 4 {
		t.Fatalf("across three replicas %d sends went out and %d were refused; want 5 and 4", sent, refused)
	}
}
