package cli

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Every command but migrate refuses a database that was never migrated,
// and leaves it as it was: on PostgreSQL an existing database or schema
// that is not Latchkey's (a mistyped name that happens to exist) used to
// be given a new schema, and `project list` answered it empty with exit
// 0. migrate then makes it a Latchkey database, and the commands work.
func TestCommandsRefuseAnUnmigratedDatabase(t *testing.T) {
	commands := func(t *testing.T) [][]string {
		newKey := filepath.Join(t.TempDir(), "new.key")
		writeFile(t, newKey, secretbox.NewKey())
		return [][]string{{"project", "list"}, {"project", "create", "--name", "Shop"},
			{"keys", "list", "--project", "project-test-x"}, {"audit", "--project", "project-test-x"},
			{"project", "rbac", "get", "--project", "project-test-x"}, {"rekey", "--new-key-file", newKey}}
	}
	run := func(t *testing.T, dsn string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		vars := map[string]string{"LATCHKEY_DATABASE_URL": dsn, "LATCHKEY_ENCRYPTION_KEY": testKey}
		code := Run(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb,
			Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
		return code, errb.String()
	}
	refused := func(t *testing.T, dsn string, untouched func() bool) {
		t.Helper()
		for _, args := range commands(t) {
			code, errs := run(t, dsn, args...)
			if code != 1 || !strings.Contains(errs, "holds no Latchkey schema") || !strings.Contains(errs, "latchkey migrate") {
				t.Errorf("%v on an unmigrated database: exit %d, stderr %q", args, code, errs)
			}
			if !untouched() {
				t.Fatalf("%v on an unmigrated database changed it", args)
			}
		}
		if code, errs := run(t, dsn, "migrate"); code != 0 {
			t.Fatalf("migrate: exit %d, %s", code, errs)
		}
		if code, errs := run(t, dsn, "project", "list"); code != 0 {
			t.Fatalf("project list after migrate: exit %d, %s", code, errs)
		}
	}

	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "empty.db")
		writeFile(t, db, "") // an empty file is an empty SQLite database
		// Opening it may set its journal mode; it must get no table.
		refused(t, db, func() bool {
			conn, err := sql.Open("sqlite", db)
			if err != nil {
				return false
			}
			defer conn.Close()
			var n int
			err = conn.QueryRow(`SELECT COUNT(*) FROM sqlite_master`).Scan(&n)
			return err == nil && n == 0
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn, schema := storetest.PostgresSchema(t)
		adm, err := sql.Open("pgx", os.Getenv(storetest.EnvPostgres))
		if err != nil {
			t.Fatal(err)
		}
		defer adm.Close()
		refused(t, dsn, func() bool {
			var n int
			err := adm.QueryRow(`SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = $1`, schema).Scan(&n)
			return err == nil && n == 0
		})
	})
}
