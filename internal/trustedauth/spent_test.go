package trustedauth_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

// A spent token is the project's and the issuer's, not the profile's: it
// is refused through a second profile of the same issuer (whatever claim
// that profile takes as the token id), and after its profile is deleted
// and created again, though tokens live up to a day. Another issuer's
// token with the same jti is another token.
func TestAttestSpentTokenIsSpentForTheIssuer(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		now := e.Clock.Now()
		tok := sc.is.token(now, "ana@acme.test", "once", nil)
		apptest.Want(t, sc.attest(tok), 200, "")
		via := func(prof *trustedauth.Profile, tok string) apptest.Resp {
			return attest(e, map[string]any{"profile_id": prof.ProfileID, "token": tok, "organization_id": sc.org})
		}
		second := jwksProfile(t, e, sc.is, nil)
		apptest.Want(t, via(second, tok), 401, "invalid_trusted_auth_token")
		bySID := jwksProfile(t, e, sc.is, func(n *trustedauth.NewProfile) { n.AttributeMapping.TokenID = "sid" })
		apptest.Want(t, via(bySID, tok), 401, "invalid_trusted_auth_token")

		for _, p := range []*trustedauth.Profile{sc.prof, second, bySID} {
			if err := e.App.TrustedAuth.DeleteProfile(t.Context(), e.Project.Project.ID, p.ProfileID); err != nil {
				t.Fatal(err)
			}
		}
		again := jwksProfile(t, e, sc.is, nil)
		apptest.Want(t, via(again, tok), 401, "invalid_trusted_auth_token")
		// The jti alone spends too: another token carrying it is refused.
		apptest.Want(t, via(again, sc.is.token(now.Add(time.Second), "ana@acme.test", "once", nil)), 401, "invalid_trusted_auth_token")

		other := newIssuer(t)
		otherProf := jwksProfile(t, e, other, func(n *trustedauth.NewProfile) { n.Issuer = "https://other-idp.test" })
		apptest.Want(t, via(otherProf, other.token(now, "ana@acme.test", "once", map[string]any{"iss": "https://other-idp.test"})),
			200, "")
	})
}

// Replicas' clocks differ. A replica whose clock runs ahead sweeps (and
// takes over, when it spends a token) only rows some minutes past the
// token's expiry, so a replica whose clock runs behind, and still takes the token
// as unexpired, finds it spent.
func TestAttestSpentTokenOutlivesASkewedSweep(t *testing.T) {
	apptest.EachPair(t, func(t *testing.T, behind, ahead *apptest.Env) {
		is := newIssuer(t)
		prof := jwksProfile(t, behind, is, nil)
		org := behind.CreateOrg("acme", "NOT_ALLOWED", nil)
		behind.CreateMember(org, "ana@acme.test")
		call := func(e *apptest.Env, tok string) apptest.Resp {
			return attest(e, map[string]any{"profile_id": prof.ProfileID, "token": tok, "organization_id": org})
		}
		tok := is.token(behind.Clock.Now(), "ana@acme.test", "skew", nil) // exp 5 min ahead
		apptest.Want(t, call(behind, tok), 200, "")
		behind.Clock.Advance(4 * time.Minute)
		ahead.Clock.Advance(7 * time.Minute) // three minutes ahead: past exp and the allowance by its clock
		// A login there spends another of the issuer's tokens; then the sweeper runs.
		apptest.Want(t, call(ahead, is.token(ahead.Clock.Now(), "ana@acme.test", "later", nil)), 200, "")
		if _, err := ahead.App.Sweeper().Once(t.Context()); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, call(behind, tok), 401, "invalid_trusted_auth_token")
	})
}

// trustedauth/0003 moves the tokens spent by profile to the per-issuer
// record: one row per project, issuer and hash (two profiles of an issuer
// may both have spent a token id), and a token spent before the migration
// stays spent.
func TestSpentTokensMigration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		sc := newScene(t, e)
		twin := jwksProfile(t, e, sc.is, nil)
		other := jwksProfile(t, e, sc.is, func(n *trustedauth.NewProfile) { n.Issuer = "https://other-idp.test" })
		exp := e.Clock.Now().Add(5 * time.Minute).UnixMilli()
		for _, step := range []string{`DROP TABLE trusted_auth_spent_tokens`,
			`DELETE FROM schema_migrations WHERE version = 'trustedauth/0003'`} {
			if _, err := e.App.DB.ExecContext(ctx, step); err != nil {
				t.Fatal(err)
			}
		}
		for _, row := range []struct {
			profile, key string
			exp          int64
		}{{sc.prof.ProfileID, "old-1", exp}, {twin.ProfileID, "old-1", exp + 1000}, {other.ProfileID, "old-1", exp}} {
			if _, err := e.App.DB.ExecContext(ctx, `INSERT INTO trusted_auth_token_uses (profile_id, token_hash, expires_at)
				VALUES ($1, $2, $3)`, row.profile, ids.Hash(row.key), row.exp); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.App.DB.Migrate(ctx, app.Migrations()...); err != nil {
			t.Fatal(err)
		}
		if n := e.Count(`SELECT COUNT(*) FROM trusted_auth_spent_tokens`); n != 2 {
			t.Fatalf("%d spent tokens after the migration, want 2 (one per issuer)", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM trusted_auth_spent_tokens WHERE issuer = $1 AND expires_at = $2`,
			issuerName, exp+1000); n != 1 {
			t.Fatal("the issuer's row does not keep the later expiry")
		}
		apptest.Want(t, sc.attest(sc.is.token(e.Clock.Now(), "ana@acme.test", "old-1", nil)), 401, "invalid_trusted_auth_token")
	})
}

// During a rolling deploy the previous release's replicas spend tokens
// only in trusted_auth_token_uses (by profile and the hash of the token
// id, or of the signed claims of a token without one). A token such a
// replica spent is refused here, and a token spent here is recorded there
// too, so that replica refuses it: one use in all, not one per release.
func TestAttestSpentTokenHoldsAcrossReleases(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		now := e.Clock.Now()
		exp := now.Add(5*time.Minute + 30*time.Second).UnixMilli()
		payload := func(tok string) string {
			b, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		oldRows := func(key string) int {
			return e.Count(`SELECT COUNT(*) FROM trusted_auth_token_uses WHERE profile_id = $1 AND token_hash = $2`,
				sc.prof.ProfileID, ids.Hash(key))
		}
		spentByOld := func(key string) {
			if _, err := e.App.DB.ExecContext(t.Context(), `INSERT INTO trusted_auth_token_uses (profile_id, token_hash, expires_at)
				VALUES ($1, $2, $3)`, sc.prof.ProfileID, ids.Hash(key), exp); err != nil {
				t.Fatal(err)
			}
		}

		withID := sc.is.token(now, "ana@acme.test", "old-release", nil)
		spentByOld("old-release")
		apptest.Want(t, sc.attest(withID), 401, "invalid_trusted_auth_token")

		withoutID := sc.is.token(now, "ana@acme.test", "", map[string]any{"jti": nil})
		spentByOld(payload(withoutID))
		apptest.Want(t, sc.attest(withoutID), 401, "invalid_trusted_auth_token")

		fresh := sc.is.token(now, "ana@acme.test", "new-release", nil)
		apptest.Want(t, sc.attest(fresh), 200, "")
		if n := oldRows("new-release"); n != 1 {
			t.Fatalf("%d rows of the spent token where the previous release looks, want 1", n)
		}
		freshWithoutID := sc.is.token(now.Add(time.Second), "ana@acme.test", "", map[string]any{"jti": nil})
		apptest.Want(t, sc.attest(freshWithoutID), 200, "")
		if n := oldRows(payload(freshWithoutID)); n != 1 {
			t.Fatalf("%d rows of the spent token without an id where the previous release looks, want 1", n)
		}
	})
}

// An issuer may sign a token id again once the first token with it has
// expired. Once the spent row is past its keep it is taken over, in both
// tables, though the sweeper has not run: the new token is accepted once,
// and stays spent until its own expiry and keep.
func TestAttestTokenIDAgainAfterTheKeepWithoutASweep(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		apptest.Want(t, sc.attest(sc.is.token(e.Clock.Now(), "ana@acme.test", "cycle", nil)), 200, "")
		e.Clock.Advance(11 * time.Minute) // past exp (5 min), the skew and the keep
		now := e.Clock.Now()
		again := sc.is.token(now, "ana@acme.test", "cycle", nil)
		apptest.Want(t, sc.attest(again), 200, "")
		apptest.Want(t, sc.attest(again), 401, "invalid_trusted_auth_token")
		apptest.Want(t, sc.attest(sc.is.token(now.Add(time.Second), "ana@acme.test", "cycle", nil)), 401, "invalid_trusted_auth_token")
		if n := e.Count(`SELECT COUNT(*) FROM trusted_auth_spent_tokens WHERE token_hash = $1 AND expires_at > $2`,
			ids.Hash("cycle"), now.UnixMilli()); n != 1 {
			t.Fatalf("%d rows of the token id with the new expiry, want 1", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM trusted_auth_token_uses WHERE profile_id = $1 AND token_hash = $2 AND expires_at > $3`,
			sc.prof.ProfileID, ids.Hash("cycle"), now.UnixMilli()); n != 1 {
			t.Fatalf("%d rows of the token id with the new expiry where the previous release looks, want 1", n)
		}
	})
}
