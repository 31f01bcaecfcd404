package store

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// A module's Source is its migrations folder, under the module's name.
func TestEmbeddedIsTheMigrationsFolder(t *testing.T) {
	src := Embedded("mod", fstest.MapFS{
		"migrations/0001_one.sql": {Data: []byte("CREATE TABLE one (x INTEGER);")},
		"other.sql":               {Data: []byte("not a migration")},
	})
	if src.Name != "mod" {
		t.Fatalf("name %q, want mod", src.Name)
	}
	b, err := fs.ReadFile(src.FS, "0001_one.sql")
	if err != nil || string(b) != "CREATE TABLE one (x INTEGER);" {
		t.Fatalf("0001_one.sql: %q, %v", b, err)
	}
	if _, err := fs.Stat(src.FS, "other.sql"); err == nil {
		t.Fatal("a file outside migrations/ is part of the source")
	}
}
