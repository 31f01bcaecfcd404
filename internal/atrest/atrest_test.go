package atrest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

func box(t *testing.T, b64 string) *secretbox.Box {
	t.Helper()
	k, err := secretbox.ParseKey(b64)
	if err != nil {
		t.Fatal(err)
	}
	b, err := secretbox.New(k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSealStoredBindsTheRow(t *testing.T) {
	t.Parallel()
	b := box(t, apptest.TestEncryptionKey)
	c := atrest.Column{Table: "things", Key: "id", Column: "secret"}
	sealed, err := c.SealStored(b, "row-1", "hunter2")
	if err != nil || !secretbox.IsSealed(sealed) || strings.Contains(sealed, "hunter2") {
		t.Fatalf("SealStored = %q, %v", sealed, err)
	}
	if pt, err := c.OpenStored(b, "row-1", sealed); err != nil || pt != "hunter2" {
		t.Fatalf("OpenStored = %q, %v", pt, err)
	}
	if _, err := c.OpenStored(b, "row-2", sealed); err == nil {
		t.Fatal("a value copied to another row opened")
	}
	other := atrest.Column{Table: "things", Key: "id", Column: "other"}
	if _, err := other.OpenStored(b, "row-1", sealed); err == nil {
		t.Fatal("a value copied to another column opened")
	}
	if _, err := c.SealStored(nil, "row-1", "x"); err == nil {
		t.Fatal("sealing without a key succeeded")
	}
	if pt, err := c.OpenStored(nil, "row-1", "legacy"); err != nil || pt != "legacy" {
		t.Fatalf("plaintext passes through until sealed: %q %v", pt, err)
	}
}

// TOTP secrets and signing keys are sealed in the database; a plaintext TOTP
// secret (a row from before encryption) is sealed by SealExisting and still
// checks codes.
func TestSecretsSealedInDatabase(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/totp/migrate", map[string]any{"organization_id": org, "member_id": mid,
			"secret": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"})
		apptest.Want(t, r, 200, "")
		regID := r.Body["totp_registration_id"].(string)
		db := e.App.DB
		var stored string
		if err := db.Read().QueryRowContext(ctx, `SELECT secret FROM totp_registrations WHERE totp_registration_id = $1`, regID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if !secretbox.IsSealed(stored) || strings.Contains(stored, "JBSWY3DP") {
			t.Fatalf("TOTP secret stored in clear: %q", stored)
		}
		if err := db.Read().QueryRowContext(ctx, `SELECT private_key_pem FROM signing_keys WHERE project_id = $1`,
			e.Project.Project.ID).Scan(&stored); err != nil || !secretbox.IsSealed(stored) {
			t.Fatalf("signing key stored in clear (%v)", err)
		}

		// Put it back in clear, as an old database would hold it.
		if _, err := db.ExecContext(ctx, `UPDATE totp_registrations SET secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' WHERE totp_registration_id = $1`, regID); err != nil {
			t.Fatal(err)
		}
		n, err := atrest.SealExisting(ctx, db, e.App.Box, app.SealedColumns()...)
		if err != nil || n != 1 {
			t.Fatalf("SealExisting = %d, %v; want 1 row sealed", n, err)
		}
		if n, err := atrest.SealExisting(ctx, db, e.App.Box, app.SealedColumns()...); err != nil || n != 0 {
			t.Fatalf("second SealExisting = %d, %v; want nothing left to seal", n, err)
		}
		if err := db.Read().QueryRowContext(ctx, `SELECT secret FROM totp_registrations WHERE totp_registration_id = $1`, regID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		pt, err := mfa.TOTPSecretColumn.OpenStored(e.App.Box, regID, stored)
		if err != nil || pt != "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" || !secretbox.IsSealed(stored) {
			t.Fatalf("resealed secret: %v", err)
		}
		// A wrong key does not open it.
		if _, err := mfa.TOTPSecretColumn.OpenStored(box(t, secretbox.NewKey()), regID, stored); err == nil {
			t.Fatal("a wrong key opened the TOTP secret")
		}
	})
}

// SealExisting on a table of its own: it seals only non-empty plaintext
// (an empty value means "no secret" and stays empty), leaves sealed values
// alone, refuses to run without a key, and refuses a Column whose names
// are not plain identifiers before building any SQL from them. A sealed
// value read without a key is ErrNoKey, never handed back as if it were
// the plaintext.
func TestSealExistingRules(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		b := box(t, apptest.TestEncryptionKey)
		c := atrest.Column{Table: "atrest_things", Key: "id", Column: "secret"}
		if _, err := db.ExecContext(ctx, `CREATE TABLE atrest_things (id TEXT PRIMARY KEY, secret TEXT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		sealed, _ := c.SealStored(b, "c", "already")
		for id, v := range map[string]string{"a": "hunter2", "b": "", "c": sealed} {
			if _, err := db.ExecContext(ctx, `INSERT INTO atrest_things (id, secret) VALUES ($1, $2)`, id, v); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := atrest.SealExisting(ctx, db, nil, c); !errors.Is(err, atrest.ErrNoKey) {
			t.Fatalf("SealExisting without a key: %v, want ErrNoKey", err)
		}
		for _, bad := range []atrest.Column{
			{Table: "atrest_things; DROP TABLE atrest_things; --", Key: "id", Column: "secret"},
			{Table: "atrest_things", Key: "id = id OR 1", Column: "secret"},
			{Table: "atrest_things", Key: "id", Column: "secret || ''"},
		} {
			if _, err := atrest.SealExisting(ctx, db, b, bad); err == nil {
				t.Errorf("SealExisting(%+v) ran", bad)
			}
		}
		if n, err := atrest.SealExisting(ctx, db, b, c); err != nil || n != 1 {
			t.Fatalf("SealExisting = %d, %v; want the one plaintext sealed", n, err)
		}
		got := map[string]string{}
		rows, err := db.Read().QueryContext(ctx, `SELECT id, secret FROM atrest_things`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, v string
			if err := rows.Scan(&id, &v); err != nil {
				t.Fatal(err)
			}
			got[id] = v
		}
		rows.Close()
		if len(got) != 3 || got["b"] != "" || got["c"] != sealed {
			t.Fatalf("rows after SealExisting: %q", got)
		}
		if pt, err := c.OpenStored(b, "a", got["a"]); err != nil || pt != "hunter2" || !secretbox.IsSealed(got["a"]) {
			t.Fatalf("sealed plaintext: %q %v", pt, err)
		}
		if pt, err := c.OpenStored(nil, "a", got["a"]); !errors.Is(err, atrest.ErrNoKey) || pt != "" {
			t.Fatalf("OpenStored without a key = %q, %v; want ErrNoKey", pt, err)
		}
	})
}

// SealExisting seals in keyset batches, and once everything is sealed it
// reads no row at all: empty values (no secret) and sealed ones are not
// selected, so a start costs one read of an empty partial index however
// large the table (the PlaintextCond index every sealed column has).
func TestSealExistingReadsNothingOnceSealed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		b := box(t, apptest.TestEncryptionKey)
		c := atrest.Column{Table: "atrest_many", Key: "id", Column: "secret"}
		for _, q := range []string{`CREATE TABLE atrest_many (id TEXT PRIMARY KEY, secret TEXT NOT NULL)`,
			`CREATE INDEX atrest_many_unsealed ON atrest_many(id) WHERE ` + c.PlaintextCond()} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		// More plaintext than one batch, and as many rows without a secret.
		const plain = 1234
		err := db.Tx(ctx, func(q store.Querier) error {
			for i := range 2 * plain {
				v := ""
				if i%2 == 0 {
					v = fmt.Sprintf("secret-%d", i)
				}
				if _, err := q.ExecContext(ctx, `INSERT INTO atrest_many (id, secret) VALUES ($1, $2)`, fmt.Sprintf("row-%05d", i), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if sealed, read, err := atrest.SealColumn(ctx, db, b, c); err != nil || sealed != plain || read != plain {
			t.Fatalf("first pass sealed %d and read %d rows, %v; want %d and %d", sealed, read, err, plain, plain)
		}
		if sealed, read, err := atrest.SealColumn(ctx, db, b, c); err != nil || sealed != 0 || read != 0 {
			t.Fatalf("once sealed, a pass sealed %d and read %d rows, %v; want none", sealed, read, err)
		}
		var id, stored string
		if err := db.Read().QueryRowContext(ctx, `SELECT id, secret FROM atrest_many WHERE id = 'row-01000'`).Scan(&id, &stored); err != nil {
			t.Fatal(err)
		}
		if pt, err := c.OpenStored(b, id, stored); err != nil || pt != "secret-1000" {
			t.Fatalf("sealed value = %q, %v", pt, err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM atrest_many WHERE secret = ''`); n != plain {
			t.Fatalf("%d empty values left, want %d", n, plain)
		}
		// A plaintext value written later (a replica of an older release)
		// is found again.
		if _, err := db.ExecContext(ctx, `UPDATE atrest_many SET secret = 'late' WHERE id = 'row-00001'`); err != nil {
			t.Fatal(err)
		}
		if sealed, read, err := atrest.SealColumn(ctx, db, b, c); err != nil || sealed != 1 || read != 1 {
			t.Fatalf("a late plaintext: sealed %d, read %d, %v; want 1 and 1", sealed, read, err)
		}
	})
}

func count(t *testing.T, db *store.DB, q string) int {
	t.Helper()
	var n int
	if err := db.Read().QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
