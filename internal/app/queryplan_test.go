package app

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// Tables that grow with traffic or with customers: a statement that scans
// one of them costs more with every login (issue 12, "cost growth").
var growingTables = []string{
	"member_sessions", "intermediate_sessions", "members", "organizations", "magic_links",
	"discovery_magic_links", "email_otps", "sms_otps", "password_resets", "member_passwords",
	"totp_registrations", "recovery_codes", "events", "idp_tokens", "idp_grants", "mail_queue", "dev_outbox",
	"trusted_auth_spent_tokens", "member_oauth_registrations", "sso_registrations",
}

// Scans that are deliberate, each with its reason. Keys are "file: start of
// the statement".
var allowedScans = map[string]string{
	// Deleting an organization cascades to the rows of its members; it is a
	// rare administrative call, and an index per cascading column would tax
	// every insert into the busiest tables instead.
	"internal/organization/store.go: DELETE FROM organizations": "rare cascade",
	// Queue depth for the metrics: a covering-index scan of a queue that
	// empties as it is delivered.
	"internal/notify/queue.go: SELECT COUNT(*) FROM mail_queue": "covering index, short queue",
	// Removing a connected app drops its tokens through a covering index; rare
	// and administrative, like the organization cascade.
	"internal/connectedapps/store.go: DELETE FROM idp_connected_apps": "rare cascade",
}

var (
	sqlStatement = regexp.MustCompile(`(?is)^\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\s`)
	sqlParam     = regexp.MustCompile(`\$(\d+)`)
	planScan     = regexp.MustCompile(`^SCAN (\w+)`)
)

// TestQueriesOnGrowingTablesUseIndexes asks SQLite for the plan of every
// SQL statement written as a string literal under internal/ (and of each
// "SELECT ... FROM t" base joined with each "WHERE ..." literal of the same
// file, the shape of the stores' load helpers), and fails on a full scan of
// a table that grows. Statements that do not prepare on their own (parts
// assembled at run time) are skipped.
func TestQueriesOnGrowingTablesUseIndexes(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := MigrateDB(ctx, db); err != nil {
		t.Fatal(err)
	}
	growing := map[string]bool{}
	for _, g := range growingTables {
		growing[g] = true
	}
	root := filepath.Join("..")
	checked := 0
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel := "internal/" + filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		for _, q := range statementsIn(t, path) {
			if seen[q] {
				continue
			}
			seen[q] = true
			plan, ok := queryPlan(ctx, db, q)
			if !ok {
				continue
			}
			checked++
			for _, step := range plan {
				m := planScan.FindStringSubmatch(step)
				if m == nil || !growing[m[1]] {
					continue
				}
				if _, ok := allowedScans[rel+": "+allowedPrefix(q)]; ok {
					continue
				}
				t.Errorf("%s: full scan of %s:\n  %s\n  plan: %s", rel, m[1], oneLine(q), strings.Join(plan, " | "))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk must have found the stores' statements; a handful would mean
	// the extraction broke, not that the code is clean.
	if checked < 100 {
		t.Fatalf("only %d statements had a plan; the extraction is broken", checked)
	}
}

// statementsIn returns the SQL string literals of a Go file, plus each base
// SELECT without WHERE joined with each literal starting with WHERE.
func statementsIn(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out, bases, wheres []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		upper := strings.ToUpper(strings.TrimSpace(s))
		switch {
		case sqlStatement.MatchString(s):
			out = append(out, s)
			if strings.HasPrefix(upper, "SELECT") && !strings.Contains(upper, "WHERE") {
				bases = append(bases, s)
			}
		case strings.HasPrefix(upper, "WHERE "):
			wheres = append(wheres, s)
		}
		return true
	})
	if len(wheres) == 0 {
		return out
	}
	// A file with WHERE fragments completes its base SELECTs at run time:
	// check the completed forms, not the bare base.
	isBase := map[string]bool{}
	for _, b := range bases {
		isBase[b] = true
		for _, w := range wheres {
			out = append(out, b+" "+w)
		}
	}
	kept := out[:0]
	for _, q := range out {
		if !isBase[q] {
			kept = append(kept, q)
		}
	}
	return kept
}

// queryPlan runs EXPLAIN QUERY PLAN with a NULL for each $N; false when the
// statement does not prepare on its own.
func queryPlan(ctx context.Context, db *store.DB, q string) ([]string, bool) {
	n := 0
	for _, m := range sqlParam.FindAllStringSubmatch(q, -1) {
		k, _ := strconv.Atoi(m[1])
		n = max(n, k)
	}
	rows, err := db.Read().QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, make([]any, n)...)
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, false
		}
		plan = append(plan, detail)
	}
	return plan, rows.Err() == nil
}

func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }

// allowedPrefix is the statement up to its first table name, which is how
// allowedScans names it.
func allowedPrefix(q string) string {
	f := strings.Fields(q)
	for i, w := range f {
		if strings.EqualFold(w, "FROM") && i+1 < len(f) {
			return strings.Join(f[:i+2], " ")
		}
	}
	return oneLine(q)
}
