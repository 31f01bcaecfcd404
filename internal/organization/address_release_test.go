package organization_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// held is what one member holds through their address: a session, a
// login link, an email code and a password reset link, all obtained while
// the address was theirs.
type held struct {
	org, memberID, email      string
	session, link, code, rset string
}

// hold gives an active member, by email, everything held lists. The
// member must have a password (for the reset link).
func hold(t *testing.T, e *apptest.Env, org, memberID, email string) *held {
	t.Helper()
	h := &held{org: org, memberID: memberID, email: email, session: e.SessionFor(org, email)}
	apptest.Want(t, e.SendLink(org, email, nil), 200, "")
	links, _ := e.LastMail(email)
	h.link = apptest.MagicLinkToken(t, links[0])
	apptest.Want(t, e.SendCode(org, email), 200, "")
	_, codes := e.LastMail(email)
	h.code = codes[0]
	apptest.Want(t, e.ResetStart(org, email, nil), 200, "")
	h.rset = e.ResetLink(email, "multi_tenant_passwords")
	return h
}

// invited invites email to org and returns the member and the invite
// link's token.
func invited(t *testing.T, e *apptest.Env, org, email string) (memberID, token string) {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": org, "email_address": email})
	apptest.Want(t, r, 200, "")
	links, _ := e.LastMail(email)
	return r.Body["member_id"].(string), apptest.MagicLinkToken(t, links[0])
}

// live counts the member's unspent email secrets, whatever their address.
func live(e *apptest.Env, memberID string) int {
	return e.Count(`SELECT COUNT(*) FROM magic_links WHERE member_id = $1 AND used_at IS NULL`, memberID) +
		e.Count(`SELECT COUNT(*) FROM email_otps WHERE member_id = $1 AND used_at IS NULL`, memberID) +
		e.Count(`SELECT COUNT(*) FROM email_update_otps WHERE member_id = $1 AND used_at IS NULL`, memberID) +
		e.Count(`SELECT COUNT(*) FROM password_resets WHERE member_id = $1 AND used_at IS NULL`, memberID)
}

// wantEnded checks that nothing h held works any more: the secrets are
// spent in the database and refused as used ones, and the session is gone.
func (h *held) wantEnded(t *testing.T, e *apptest.Env, emails ...string) {
	t.Helper()
	if n := live(e, h.memberID); n != 0 {
		t.Fatalf("%d email secrets of the member are still live", n)
	}
	apptest.Want(t, e.RedeemLink(h.link, nil), 401, "unable_to_auth_magic_link")
	for _, email := range emails {
		apptest.Want(t, e.CheckCode(h.org, email, h.code), 404, "otp_code_not_found")
	}
	apptest.Want(t, e.ResetWith(h.rset, apptest.StrongPassword, nil), 401, "unable_to_auth_magic_link")
	apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, h.session), 404, "session_not_found")
}

// An address changed without proof, by an admin's session or by the
// customer's backend, ends in the same transaction what the old address
// held: links (login and invite), email codes, reset links and the
// member's sessions. Otherwise a secret sent to an inbox the admin owns
// would verify whatever address they set next, and a session would keep
// speaking for it (a password session sets the address's password).
func TestAdminAddressChangeEndsWhatTheOldAddressHeld(t *testing.T) {
	for _, by := range []string{"admin session", "backend"} {
		t.Run(by, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
				apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
					map[string]any{"email_address": "boss@acme.test", "is_admin": true}), 200, "")
				admin := e.SessionFor(org, "boss@acme.test")
				change := func(memberID, email string) {
					body := map[string]any{"email_address": email}
					if by == "backend" {
						apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+memberID, body), 200, "")
					} else {
						apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+memberID, body, admin), 200, "")
					}
				}

				mule := e.CreateMember(org, "mule@acme.test")
				e.SetPassword(org, "mule@acme.test", apptest.StrongPassword)
				h := hold(t, e, org, mule, "mule@acme.test")
				nia, invite := invited(t, e, org, "nia@acme.test")

				change(mule, "ceo@victim.test")
				change(nia, "cfo@victim.test")
				h.wantEnded(t, e, "mule@acme.test", "ceo@victim.test")
				apptest.Want(t, e.RedeemLink(invite, nil), 401, "unable_to_auth_magic_link")
				if n := live(e, nia); n != 0 {
					t.Fatalf("%d email secrets of the invited member are still live", n)
				}
				// The admin's own session is not the member's.
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, admin), 200, "")

				// An update that leaves the address as it is ends nothing.
				other := e.CreateMember(org, "ok@acme.test")
				e.SetPassword(org, "ok@acme.test", apptest.StrongPassword)
				kept := hold(t, e, org, other, "ok@acme.test")
				before := live(e, other)
				change(other, "OK@acme.test")
				if n := live(e, other); n != before || n == 0 {
					t.Fatalf("an unchanged address spent secrets: %d live, were %d", n, before)
				}
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, kept.session), 200, "")
			})
		})
	}
}

// A verified change (start_email_update, then its code) also ends what
// the old address held: the secrets sent to it, and every older session
// (which CompleteEmailChange already ended, and still does).
func TestVerifiedAddressChangeEndsWhatTheOldAddressHeld(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		e.SetPassword(f.Acme, "bob@acme.test", apptest.StrongPassword)
		h := hold(t, e, f.Acme, f.PlainID, "bob@acme.test")
		apptest.Want(t, e.StartEmailUpdate(h.session, "", map[string]any{"email_address": "robert@acme.test", "delivery_method": "EMAIL_OTP"}),
			200, "")
		_, codes := e.LastMail("robert@acme.test")
		r := e.CheckCode(f.Acme, "robert@acme.test", codes[0])
		if r.Status != 200 || apptest.MemberOf(r.Data())["email_address"] != "robert@acme.test" {
			t.Fatalf("email update: %s", r.Raw)
		}
		h.wantEnded(t, e, "bob@acme.test", "robert@acme.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, f.Plain), 404, "session_not_found")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, r.Data()["session_token"].(string)), 200, "")
	})
}

// Reactivating a deleted member spends what was emailed to them before the
// deletion, so that a login, invite or reset link (or code) refused as
// inactive_member while they were deleted does not work again.
func TestReactivationDoesNotReviveEmailSecrets(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		bob := e.CreateMember(org, "bob@acme.test")
		e.SetPassword(org, "bob@acme.test", apptest.StrongPassword)
		h := hold(t, e, org, bob, "bob@acme.test")
		// Only a member whose address was verified can be reactivated: the
		// invitee logs in by code, which leaves the invite link live.
		nia, invite := invited(t, e, org, "nia@acme.test")
		e.SessionFor(org, "nia@acme.test")
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE member_id = $1 AND used_at IS NULL`, nia); n != 1 {
			t.Fatalf("%d live links of the invitee after their login, want the invite's", n)
		}

		for _, id := range []string{bob, nia} {
			apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+id, nil), 200, "")
		}
		apptest.Want(t, e.RedeemLink(h.link, nil), 403, "inactive_member")
		for _, id := range []string{bob, nia} {
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id+"/reactivate", nil), 200, "")
		}
		h.wantEnded(t, e, "bob@acme.test")
		apptest.Want(t, e.RedeemLink(invite, nil), 401, "unable_to_auth_magic_link")
		if n := live(e, nia); n != 0 {
			t.Fatalf("%d email secrets of the invited member are still live", n)
		}
		// New ones work: the member is back.
		if r := e.CheckCode(org, "bob@acme.test", func() string {
			apptest.Want(t, e.SendCode(org, "bob@acme.test"), 200, "")
			_, codes := e.LastMail("bob@acme.test")
			return codes[0]
		}()); r.Status != 200 {
			t.Fatalf("a new code after reactivation: %s", r.Raw)
		}
	})
}
