package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// Every batch of the sweeper finds its rows through an index: without one,
// each 1,000-row batch rescanned its whole table while holding the writer.
// The plans are SQLite's (queryplan_test.go's style); the migrations give
// PostgreSQL the same indexes. Sweep statements are assembled at run time,
// so TestQueriesOnGrowingTablesUseIndexes does not see them.
func TestSweepBatchesUseIndexes(t *testing.T) {
	t.Parallel()
	// With SMTP configured the app has a mail queue, whose sweep is listed too.
	e := apptest.New(t, apptest.SQLite(t), func(c *config.Config) { c.SMTPURL = "smtp://127.0.0.1:1?tls=none" })
	ctx := context.Background()
	checked := map[string]bool{}
	for _, it := range e.App.Sweeper().Items() {
		ex, ok := it.(sweeper.Expired)
		if !ok {
			continue // a package's own function, no batch statement to ask about
		}
		q, err := ex.Statement()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := e.App.DB.Read().QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, nil)
		if err != nil {
			t.Fatalf("%s: %v", ex.Table, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN "+ex.Table) {
				t.Errorf("%s: the sweep scans the table:\n  %s\n  plan: %s", ex.Table, q, strings.Join(plan, " | "))
			}
		}
		checked[ex.Table] = true
	}
	for _, table := range []string{"rate_limits", "attempt_counters", "flow_tickets", "password_resets", "sms_otps",
		"discovery_magic_links", "discovery_email_otps", "email_update_otps", "totp_registrations", "idp_tokens", "idp_grants",
		"trusted_auth_token_uses", "trusted_auth_spent_tokens", "mail_queue"} {
		if !checked[table] {
			t.Errorf("%s is not swept in batches (sweeper.Expired)", table)
		}
	}
}
