package atrest_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// CheckKey on a database whose first key it records: the same key passes
// again, any other is ErrWrongKey, and no key is ErrNoKey.
func TestCheckKeyRecordsTheFirstKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		right, wrong := box(t, apptest.TestEncryptionKey), box(t, secretbox.NewKey())
		if err := atrest.CheckKey(ctx, db, nil); !errors.Is(err, atrest.ErrNoKey) {
			t.Fatalf("no key: %v, want ErrNoKey", err)
		}
		if err := atrest.CheckKey(ctx, db, right); err != nil {
			t.Fatalf("first key on an empty database: %v", err)
		}
		if err := atrest.CheckKey(ctx, db, right); err != nil {
			t.Fatalf("the same key again: %v", err)
		}
		if err := atrest.CheckKey(ctx, db, wrong); !errors.Is(err, atrest.ErrWrongKey) {
			t.Fatalf("another key: %v, want ErrWrongKey", err)
		}
	})
}

// A database sealed before the key check existed has no canary: the first
// key checked must open the values already sealed, column by column, and
// plaintext values (sealed later by SealExisting) are no obstacle. A
// refused key records nothing, so the right one still gets in afterwards.
func TestCheckKeyOnSecretsSealedBeforeTheCheck(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		right, wrong := box(t, apptest.TestEncryptionKey), box(t, secretbox.NewKey())
		plain := atrest.Column{Table: "atrest_plain", Key: "id", Column: "secret"}
		sealedCol := atrest.Column{Table: "atrest_sealed", Key: "id", Column: "secret"}
		for _, c := range []atrest.Column{plain, sealedCol} {
			if _, err := db.ExecContext(ctx, `CREATE TABLE `+c.Table+` (id TEXT PRIMARY KEY, secret TEXT NOT NULL)`); err != nil {
				t.Fatal(err)
			}
		}
		sealed, _ := sealedCol.SealStored(right, "b", "hunter2")
		if _, err := db.ExecContext(ctx, `INSERT INTO atrest_plain (id, secret) VALUES ('a', 'in clear'), ('b', '')`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO atrest_sealed (id, secret) VALUES ('a', ''), ('b', $1)`, sealed); err != nil {
			t.Fatal(err)
		}
		if err := atrest.CheckKey(ctx, db, wrong, plain); err != nil {
			t.Fatalf("plaintext only: %v", err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM encryption_key_check`); err != nil {
			t.Fatal(err)
		}
		if err := atrest.CheckKey(ctx, db, wrong, plain, sealedCol); !errors.Is(err, atrest.ErrWrongKey) {
			t.Fatalf("a key that does not open the sealed column: %v, want ErrWrongKey", err)
		}
		if err := atrest.CheckKey(ctx, db, right, plain, sealedCol); err != nil {
			t.Fatalf("the key the column was sealed with, after a refused one: %v", err)
		}
		if err := atrest.CheckKey(ctx, db, wrong); !errors.Is(err, atrest.ErrWrongKey) {
			t.Fatalf("the canary the right key wrote: %v, want ErrWrongKey", err)
		}
		bad := atrest.Column{Table: "atrest_sealed", Key: "id", Column: "secret || ''"}
		if _, err := db.ExecContext(ctx, `DELETE FROM encryption_key_check`); err != nil {
			t.Fatal(err)
		}
		if err := atrest.CheckKey(ctx, db, right, bad); err == nil {
			t.Fatal("CheckKey built SQL from a column that is no identifier")
		}
	})
}

// Replicas starting at once on an empty database with different keys: the
// canary is written once, and only the processes holding its key start.
func TestCheckKeyRaceAgreesOnOneKey(t *testing.T) {
	t.Parallel()
	storetest.EachPair(t, func(t *testing.T, a, b *store.DB) {
		ctx := context.Background()
		keys := []*secretbox.Box{box(t, apptest.TestEncryptionKey), box(t, secretbox.NewKey())}
		errs := make([]error, 8)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { errs[i] = atrest.CheckKey(ctx, []*store.DB{a, b}[i%2], keys[i/2%2]) })
		}
		wg.Wait()
		won := map[int]bool{}
		for i, err := range errs {
			switch {
			case err == nil:
				won[i/2%2] = true
			case !errors.Is(err, atrest.ErrWrongKey):
				t.Fatalf("start %d: %v", i, err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("keys that started: %v (errors %v), want exactly one", won, errs)
		}
		for k := range won {
			for i, err := range errs {
				if (err == nil) != (i/2%2 == k) {
					t.Fatalf("start %d with key %d: %v", i, i/2%2, err)
				}
			}
		}
	})
}

// HasSealed sees a database's sealed values, the key check value or a
// column's, and nothing in one that holds only plaintext: `latchkey dev`
// asks it before making up a key.
func TestHasSealed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		col := atrest.Column{Table: "atrest_has", Key: "id", Column: "secret"}
		if _, err := db.ExecContext(ctx, `CREATE TABLE `+col.Table+` (id TEXT PRIMARY KEY, secret TEXT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO atrest_has (id, secret) VALUES ('a', 'in clear')`); err != nil {
			t.Fatal(err)
		}
		if has, err := atrest.HasSealed(ctx, db, col); err != nil || has {
			t.Fatalf("plaintext only: %t, %v", has, err)
		}
		sealed, _ := col.SealStored(box(t, apptest.TestEncryptionKey), "b", "hunter2")
		if _, err := db.ExecContext(ctx, `INSERT INTO atrest_has (id, secret) VALUES ('b', $1)`, sealed); err != nil {
			t.Fatal(err)
		}
		if has, err := atrest.HasSealed(ctx, db, col); err != nil || !has {
			t.Fatalf("a sealed value: %t, %v", has, err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM atrest_has`); err != nil {
			t.Fatal(err)
		}
		if err := atrest.CheckKey(ctx, db, box(t, apptest.TestEncryptionKey)); err != nil {
			t.Fatal(err)
		}
		if has, err := atrest.HasSealed(ctx, db, col); err != nil || !has {
			t.Fatalf("the key check value: %t, %v", has, err)
		}
	})
}
