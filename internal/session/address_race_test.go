package session_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// raceLogin is a login of one member whose deciding read is taken apart
// from its completion, so a test can change the member in between.
type raceLogin struct {
	e   *apptest.Env
	org *organization.Organization
	mid string
}

func newRaceLogin(t *testing.T, e *apptest.Env, slug string, mfa bool) *raceLogin {
	t.Helper()
	orgID := e.CreateOrg(slug, "NOT_ALLOWED", nil)
	if mfa {
		e.SetMFA(orgID, "REQUIRED_FOR_ALL")
	}
	mid := e.CreateMember(orgID, "ada@race.test")
	org, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, orgID)
	if err != nil {
		t.Fatal(err)
	}
	return &raceLogin{e: e, org: org, mid: mid}
}

// read is the login's deciding read of the member, outside any
// transaction (as a password login reads it before hashing).
func (l *raceLogin) read(t *testing.T) *organization.Member {
	t.Helper()
	m, err := l.e.App.Orgs.Member(t.Context(), l.e.App.DB.Read(), l.e.Project.Project.ID, l.mid)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// complete finishes, inside q, a password login of m.
func (l *raceLogin) complete(ctx context.Context, q store.Querier, m *organization.Member, from *session.SessionResponse) error {
	_, err := l.e.App.Sessions.Complete(ctx, q, session.CompleteParams{Project: l.e.Project.Project, Organization: l.org,
		Member: m, DurationMinutes: 60, From: from, Factor: session.Factor{DeliveryMethod: "knowledge", Type: "password",
			EmailFactor: &session.EmailFactor{EmailID: m.EmailID, EmailAddress: m.EmailAddress}}})
	return err
}

// wantNothingLive checks that the member holds no session and no IST.
func (l *raceLogin) wantNothingLive(t *testing.T) {
	t.Helper()
	if n := l.e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1 AND revoked_at IS NULL`, l.mid); n != 0 {
		t.Fatalf("%d live sessions of the member after the change", n)
	}
	if n := l.e.Count(`SELECT COUNT(*) FROM intermediate_sessions WHERE member_id = $1 AND used_at IS NULL`, l.mid); n != 0 {
		t.Fatalf("%d live intermediate sessions of the member after the change", n)
	}
}

// A login that read the member before an admin changed the member's
// address, or deleted them, and completes after the change committed gets
// neither a session nor an IST: the change ended everything the member
// held, and what the login would start speaks for an address whose
// holder never logged in. On SQLite this is the only interleaving (one
// writer): the read happens outside the login's write transaction.
func TestLoginCompletedAfterMemberChangedIsRefused(t *testing.T) {
	t.Parallel()
	changes := []struct {
		name   string
		change func(t *testing.T, e *apptest.Env, org, mid string)
		want   apierr.Type
	}{
		{"address", func(t *testing.T, e *apptest.Env, org, mid string) {
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+mid,
				map[string]any{"email_address": "someone-else@race.test"}), 200, "")
		}, apierr.MemberNotFound},
		{"deleted", func(t *testing.T, e *apptest.Env, org, mid string) { e.DeleteMember(org, mid) }, apierr.InactiveMember},
	}
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for _, c := range changes {
			for _, outcome := range []string{"session", "ist"} { // an IST: the organization requires MFA
				t.Run(c.name+" "+outcome, func(t *testing.T) {
					l := newRaceLogin(t, e, c.name+"-"+outcome, outcome == "ist")
					m := l.read(t)
					c.change(t, e, l.org.OrganizationID, l.mid)
					err := e.App.DB.Tx(t.Context(), func(q store.Querier) error { return l.complete(t.Context(), q, m, nil) })
					if !apierr.Is(err, c.want) {
						t.Fatalf("login completed after the change: %v, want %s", err, c.want)
					}
					l.wantNothingLive(t)
				})
			}
		}
	})
}

// A session checked before an address change (a step-up's held session)
// cannot carry its factors, proven for the old address, into a session of
// a login that read the member after the change.
func TestHeldSessionFromBeforeAddressChangeIsRefused(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		l := newRaceLogin(t, e, "held", false)
		token := e.SessionFor(l.org.OrganizationID, "ada@race.test")
		from, err := e.App.Sessions.Held(t.Context(), e.Project.Project, session.Held{SessionToken: token})
		if err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+l.org.OrganizationID+"/members/"+l.mid,
			map[string]any{"email_address": "someone-else@race.test"}), 200, "")
		m := l.read(t)
		err = e.App.DB.Tx(t.Context(), func(q store.Querier) error { return l.complete(t.Context(), q, m, from) })
		if !apierr.Is(err, apierr.MemberNotFound) {
			t.Fatalf("step-up from the old address's session: %v, want member_not_found", err)
		}
		l.wantNothingLive(t)
	})
}

// On PostgreSQL (READ COMMITTED, many writers) a login that read the
// member before an admin's address change may insert its session or IST
// while the change is in flight: after the change's revocation, or before
// it but committed after it, unseen by it either way. Each order is driven
// by hand: the first transaction is held open after its work while the
// second runs; once both ended, the member holds nothing. Either the login
// waited for the change and was refused, or the change waited for the
// login and ended what it created.
func TestLoginOverlappingAddressChangeOnPostgres(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	for _, outcome := range []string{"session", "ist"} {
		for _, changeFirst := range []bool{true, false} {
			name := outcome + map[bool]string{true: " change first", false: " login first"}[changeFirst]
			t.Run(name, func(t *testing.T) {
				ctx := t.Context()
				l := newRaceLogin(t, e, strings.ReplaceAll(name, " ", "-"), outcome == "ist")
				m := l.read(t)
				change := func(q store.Querier) error {
					return e.ChangeAddressIn(q, l.org.OrganizationID, l.mid, "someone-else@race.test")
				}
				login := func(q store.Querier) error { return l.complete(ctx, q, m, nil) }
				inTx := func(fn func(q store.Querier) error) func() error {
					return func() error { return e.App.DB.Tx(ctx, fn) }
				}
				if changeFirst {
					changeErr, loginErr := storetest.Overlap(t, e.App.DB, change, inTx(login))
					if changeErr != nil || !apierr.Is(loginErr, apierr.MemberNotFound) {
						t.Fatalf("change: %v; login after it: %v, want member_not_found", changeErr, loginErr)
					}
				} else if loginErr, changeErr := storetest.Overlap(t, e.App.DB, login, inTx(change)); loginErr != nil || changeErr != nil {
					t.Fatalf("login: %v; change after it: %v", loginErr, changeErr)
				}
				l.wantNothingLive(t)
			})
		}
	}
}

// An MFA step redeems the login's IST (a row lock on intermediate_sessions)
// and then completes the login, which holds the member's row; an admin's
// address change updates the member's row and then spends the member's
// ISTs (ReleaseAddress). In opposite orders, a change landing between the
// two steps deadlocks with the login: PostgreSQL aborts one after
// deadlock_timeout and store.Tx runs it again. The redemption holds the
// member's row first, so the change waits for the login, which runs once
// and whose new IST the change then spends.
func TestISTRedemptionAndAddressChangeDoNotDeadlock(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	ctx := t.Context()
	l := newRaceLogin(t, e, "redeem", true)
	ist, _ := e.MFALogin(l.org.OrganizationID, "ada@race.test")
	m := l.read(t)
	e.LoginDuringAddressChange(t, l.org.OrganizationID, l.mid, "someone-else@race.test",
		func(q store.Querier) error {
			_, err := e.App.Sessions.RedeemIntermediate(ctx, q, e.Project.Project, ist)
			return err
		},
		func(q store.Querier) error { return l.complete(ctx, q, m, nil) })
	l.wantNothingLive(t)
}
