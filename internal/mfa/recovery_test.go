package mfa_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// storedCode is one recovery_codes row as the database holds it.
type storedCode struct {
	id     string
	reveal *string
}

func (c storedCode) String() string {
	if c.reveal == nil {
		return c.id + ": NULL"
	}
	return c.id + ": " + *c.reveal
}

// storedCodes reads the member's recovery code rows in position order.
func storedCodes(t *testing.T, e *apptest.Env, mid string) []storedCode {
	t.Helper()
	rows, err := e.App.DB.Read().QueryContext(context.Background(), `SELECT recovery_code_id, reveal FROM recovery_codes
		WHERE member_id = $1 ORDER BY position`, mid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []storedCode
	for rows.Next() {
		var c storedCode
		if err := rows.Scan(&c.id, &c.reveal); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// getCodes is the backend's recovery codes get for the member.
func getCodes(e *apptest.Env, org, mid string) apptest.Resp {
	return e.Backend(http.MethodGet, "/v1/b2b/recovery_codes/"+org+"/"+mid, nil)
}

// wantCodes checks that a get answered exactly want, in order.
func wantCodes(t *testing.T, r apptest.Resp, want []any) {
	t.Helper()
	got, _ := r.Body["recovery_codes"].([]any)
	if r.Status != 200 || got == nil || !slices.Equal(got, want) {
		t.Fatalf("recovery codes get = %s, want %v", r.Raw, want)
	}
}

// The readable copy of each recovery code is sealed at rest for its row
// (a database dump yields no working code), and plaintext copies left by
// earlier versions are sealed by the start-up pass (atrest.SealExisting
// over app.SealedColumns) and still shown afterwards.
func TestRecoveryCodesSealedAtRest(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		if !slices.Contains(app.SealedColumns(), mfa.RecoveryCodeColumn) {
			t.Fatal("recovery codes are not among app.SealedColumns")
		}
		org, mid, _, codes := e.TOTPMember()
		rows := storedCodes(t, e, mid)
		if len(rows) != len(codes) {
			t.Fatalf("%d rows for %d codes", len(rows), len(codes))
		}
		for i, r := range rows {
			if r.reveal == nil || !secretbox.IsSealed(*r.reveal) || strings.Contains(*r.reveal, codes[i].(string)) {
				t.Fatalf("code %d stored readable: %v", i, r)
			}
			if plain, err := mfa.RecoveryCodeColumn.OpenStored(e.App.Box, r.id, *r.reveal); err != nil || plain != codes[i] {
				t.Fatalf("code %d opens for its row as %q, %v", i, plain, err)
			}
			other := rows[(i+1)%len(rows)].id
			if _, err := mfa.RecoveryCodeColumn.OpenStored(e.App.Box, other, *r.reveal); err == nil {
				t.Fatalf("code %d opened for another row", i)
			}
		}
		wantCodes(t, getCodes(e, org, mid), codes)

		// A database from before: the copies in clear.
		for i, r := range rows {
			if _, err := e.App.DB.ExecContext(ctx, `UPDATE recovery_codes SET reveal = $1 WHERE recovery_code_id = $2`,
				codes[i], r.id); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := atrest.SealExisting(ctx, e.App.DB, e.App.Box, app.SealedColumns()...); err != nil || n != len(codes) {
			t.Fatalf("SealExisting = %d, %v; want %d", n, err, len(codes))
		}
		for i, r := range storedCodes(t, e, mid) {
			if r.reveal == nil || !secretbox.IsSealed(*r.reveal) {
				t.Fatalf("code %d left in clear by the start-up pass: %v", i, r)
			}
		}
		wantCodes(t, getCodes(e, org, mid), codes)
		// The start-up key check accepts the key that sealed them.
		if err := app.CheckEncryptionKey(ctx, e.App.DB, e.App.Box); err != nil {
			t.Fatal(err)
		}
	})
}

// Get answers the member's full set of active codes, as the API family
// documents: spending a code erases its copy and get shows the rest, in
// their order; with every code spent it shows none. A set whose copies an
// earlier version erased at its first use answers recovery_codes_not_found
// until rotated.
func TestRecoveryCodesGetShowsTheUnusedCodes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid, _, codes := e.TOTPMember()
		// The first code completes a login, the others step its session
		// up (a login per code would meet the email send limits).
		ist, _ := e.MFALogin(org, "ada@secure.test")
		token := ""
		recover := func(code any) {
			t.Helper()
			body := map[string]any{"organization_id": org, "member_id": mid, "recovery_code": code}
			if token == "" {
				body["intermediate_session_token"] = ist
			}
			r := e.SDK(http.MethodPost, "/b2b/recovery_codes/recover", body, token)
			if r.Status != 200 {
				t.Fatalf("recover with %v: %s", code, r.Raw)
			}
			token = r.Data()["session_token"].(string)
		}
		recover(codes[3])
		recover(codes[0])
		wantCodes(t, getCodes(e, org, mid), append(slices.Clone(codes[1:3]), codes[4:]...))
		for i, r := range storedCodes(t, e, mid) {
			if spent := i == 0 || i == 3; spent != (r.reveal == nil) {
				t.Fatalf("code %d (spent %v): copy kept = %v", i, spent, r.reveal != nil)
			}
		}

		for _, c := range codes {
			if c != codes[0] && c != codes[3] {
				recover(c)
			}
		}
		wantCodes(t, getCodes(e, org, mid), []any{})

		// An earlier version's set, its copies erased at the first use.
		r := e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/rotate", map[string]any{"organization_id": org, "member_id": mid})
		fresh, _ := r.Body["recovery_codes"].([]any)
		if r.Status != 200 || len(fresh) != mfa.RecoveryCodeCount {
			t.Fatalf("rotate: %s", r.Raw)
		}
		if _, err := e.App.DB.ExecContext(context.Background(), `UPDATE recovery_codes SET reveal = NULL WHERE member_id = $1`,
			mid); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, getCodes(e, org, mid), 404, "recovery_codes_not_found")
		recover(fresh[1]) // the codes themselves still work
	})
}

// A deleted member's recovery codes are not shown, and a reactivated
// member's are again.
func TestRecoveryCodesOfADeletedMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid, _, codes := e.TOTPMember()
		memberPath := "/v1/b2b/organizations/" + org + "/members/" + mid
		apptest.Want(t, e.Backend(http.MethodDelete, memberPath, nil), 200, "")
		apptest.Want(t, getCodes(e, org, mid), 400, "action_available_only_for_active_members")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath+"/reactivate", nil), 200, "")
		wantCodes(t, getCodes(e, org, mid), codes)
	})
}

// Rotating a deleted member's recovery codes is refused like get, and
// writes nothing: codes issued while deleted would pass MFA once the
// member is reactivated.
func TestRecoveryCodesRotateRefusedForADeletedMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid, _, codes := e.TOTPMember()
		memberPath := "/v1/b2b/organizations/" + org + "/members/" + mid
		before := storedCodes(t, e, mid)
		apptest.Want(t, e.Backend(http.MethodDelete, memberPath, nil), 200, "")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/recovery_codes/rotate",
			map[string]any{"organization_id": org, "member_id": mid}), 400, "action_available_only_for_active_members")
		apptest.Want(t, e.Backend(http.MethodPut, memberPath+"/reactivate", nil), 200, "")
		if after := storedCodes(t, e, mid); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("recovery code rows changed by a refused rotate: %v, want %v", after, before)
		}
		wantCodes(t, getCodes(e, org, mid), codes)
	})
}
