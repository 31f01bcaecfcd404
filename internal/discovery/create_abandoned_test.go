package discovery_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// An organizations/create whose client goes away while the login waits
// (here for the IST's row, held by another transaction) ends with the
// request's context cancelled. The organization used to be created before
// the login's transaction and undone on that cancelled context, which
// failed: an organization with no member kept the slug, and the retry
// with the same IST was refused organization_slug_already_used. It is now
// created inside the login's transaction and goes with its rollback.
func TestDiscoveryCreateAbandonedByItsClientLeavesNoOrganization(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ist := e.Discover("founder@newco.test")["intermediate_session_token"].(string)
	body := `{"intermediate_session_token":"` + ist + `","organization_slug":"newco"}`
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, clientErr := storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		_, err := q.ExecContext(t.Context(), `SELECT 1 FROM intermediate_sessions FOR UPDATE`)
		return err
	}, func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.Srv.URL+"/sdk/v1/b2b/discovery/organizations/create",
			strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", apptest.Origin)
		req.SetBasicAuth(e.Project.PublicToken, e.Project.PublicToken)
		res, err := e.Srv.Client().Do(req)
		if err == nil {
			res.Body.Close()
		}
		return err
	}, func(q store.Querier) error {
		// The client gives up while the login waits for the IST; the IST
		// stays held until the server has seen it and stopped waiting.
		cancel()
		var pid int
		if err := q.QueryRowContext(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			var waiting bool
			if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
				WHERE $1::int = ANY(pg_blocking_pids(pid)))`, pid).Scan(&waiting); err != nil {
				return err
			}
			if !waiting {
				return nil
			}
			if time.Now().After(deadline) {
				return errors.New("the abandoned login still waits for the IST")
			}
		}
	})
	if !errors.Is(clientErr, context.Canceled) {
		t.Fatalf("client: %v, want it cancelled", clientErr)
	}
	if n := e.Count(`SELECT COUNT(*) FROM organizations WHERE organization_slug = 'newco'`); n != 0 {
		t.Fatalf("the abandoned create left %d organization(s) holding the slug", n)
	}
	apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": ist,
		"organization_slug": "newco"}, ""), 200, "")
}
