package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// A session checked just before shutdown leaves a last_accessed_at write
// for the final flush in App.Close; when that write fails, serve says so
// instead of dropping the error.
func TestServeLogsAFailedFinalFlush(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "serve.db")
	db, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	e := apptest.New(t, db, nil)
	// serve runs on the real clock: log in two minutes ago, so that the
	// check below is due to write last_accessed_at (once a minute).
	e.Clock.Advance(time.Since(e.Clock.Now()) - 2*time.Minute)
	org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
	token, _, _ := e.Login(org, "ada@acme.test")
	// Every last_accessed_at write now fails.
	if _, err := db.ExecContext(t.Context(), `CREATE TRIGGER touch_fails BEFORE UPDATE OF last_accessed_at ON member_sessions
		BEGIN SELECT RAISE(ABORT, 'test: last_accessed_at writes refused'); END`); err != nil {
		t.Fatal(err)
	}

	r := startServer(t, map[string]string{"LATCHKEY_DATABASE_URL": path, "LATCHKEY_ENCRYPTION_KEY": apptest.TestEncryptionKey,
		"LATCHKEY_BREACH_API_URL": "off"}, "serve", "--addr", "127.0.0.1:0")
	body, _ := json.Marshal(map[string]any{"session_token": token})
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.addr+"/v1/b2b/sessions/authenticate", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(e.Project.Project.ID, e.Project.Secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("session check: %d", res.StatusCode)
	}
	r.stop()
	logs := r.errb.String()
	if !strings.Contains(logs, "shutdown: closing the server failed") || !strings.Contains(logs, "last_accessed_at writes refused") {
		t.Fatalf("the failed final flush was not logged: %s", logs)
	}
	if strings.Contains(logs, token) || strings.Contains(logs, e.Project.Secret) {
		t.Fatalf("the log holds a secret: %s", logs)
	}
}
