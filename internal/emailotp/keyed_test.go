package emailotp_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// A six-digit code stored as a salted SHA-256 beside its salt is undone
// from a read of the table in a million hashes, so the stored hash is a
// tag under the encryption key: the row alone does not tell the code.
// A row stored the old way (a code live across an upgrade) still checks.
func TestStoredCodesNeedTheKey(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		if r := e.SendCode(org, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send: %d %s", r.Status, r.Body)
		}
		_, codes := e.LastMail("ada@acme.test")
		var salt, hash string
		if err := e.App.DB.QueryRowContext(t.Context(), `SELECT code_salt, code_hash FROM email_otps
			WHERE used_at IS NULL`).Scan(&salt, &hash); err != nil {
			t.Fatal(err)
		}
		if hash == ids.HashCode(salt, codes[0]) {
			t.Fatal("the stored hash is the code's salted SHA-256: a database read recovers the code")
		}
		// Only the key makes the tag: the same code and salt under another
		// key, or under none, do not match.
		for name, box := range map[string]*secretbox.Box{"another key": secretbox.NewRandom(), "no key": nil} {
			c := emailotp.Codes{Table: "email_otps", IDColumn: "email_otp_id", KeyColumn: "member_id", Clock: e.App.Clock, Box: box}
			if got, ok := c.Hash(salt, codes[0]); ok && got == hash {
				t.Errorf("%s reproduced the stored tag", name)
			}
		}
		if r := e.CheckCode(org, "ada@acme.test", codes[0]); r.Status != 200 {
			t.Fatalf("check: %d %s", r.Status, r.Body)
		}

		// A code stored by the previous release: plain salt, salted SHA-256.
		e.SendCode(org, "ada@acme.test")
		_, codes = e.LastMail("ada@acme.test")
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE email_otps SET code_salt = 'oldsalt', code_hash = $1
			WHERE used_at IS NULL`, ids.HashCode("oldsalt", codes[0])); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, e.CheckCode(org, "ada@acme.test", apptest.WrongCode(codes[0])), 404, "otp_code_not_found")
		if r := e.CheckCode(org, "ada@acme.test", codes[0]); r.Status != 200 {
			t.Fatalf("a code stored the old way: %d %s", r.Status, r.Body)
		}
	})
}

// Without a key, no code is issued: storing it as a plain salted hash
// would be the weakness above, silently.
func TestCodesWithoutAKeyAreNotIssued(t *testing.T) {
	e := apptest.New(t, apptest.SQLite(t), nil)
	c := emailotp.Codes{Table: "email_otps", IDColumn: "email_otp_id", KeyColumn: "member_id", Clock: e.App.Clock}
	if _, err := c.Issue(t.Context(), e.App.DB, ids.Test, e.Project.Project.ID, "member-x", 10*time.Minute, nil); err == nil {
		t.Fatal("a code was issued without a key to tag it with")
	}
}
