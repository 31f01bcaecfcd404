package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// wantNoPasswordFor checks that the address's new member in org inherited
// nothing of a password set before every membership of the address ended:
// no member_password_id, the old password refused, and the refused login
// left the address unverified (a login with it would have verified it).
func wantNoPasswordFor(t *testing.T, e *apptest.Env, org, memberID, email, old string) {
	t.Helper()
	if id := e.PasswordID(org, memberID); id != "" {
		t.Fatalf("the new member %s shows member_password_id %q", memberID, id)
	}
	apptest.Want(t, e.PasswordLogin(org, email, old), 401, "unauthorized_credentials")
	if m := e.MemberByID(org, memberID); m["email_address_verified"] != false {
		t.Fatalf("the new member's address is verified: %v", m)
	}
	if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1`, email); n != 0 {
		t.Fatalf("%d passwords of %s remain", n, email)
	}
}

// A password belongs to an address while the address has a member row in
// the project. Deleting the organization that held its only membership
// ends it with the membership, in the same transaction: otherwise an
// organization re-created with the same slug, and a new member an admin
// adds with the address (a role mailbox, a recycled staff address), would
// show the old member_password_id at once, and whoever knew the old
// password would log in as the new member and verify the address. What
// else the address kept for the password goes too: its discovery reset
// links (org reset links go with their member) and its failure counts.
func TestOrganizationDeletionEndsThePasswordOfItsLastMembership(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const email = "desk@acme.test"
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, email)
		e.SetPassword(org, email, apptest.StrongPassword)
		apptest.Want(t, e.PasswordLogin(org, email, apptest.StrongPassword), 200, "")
		apptest.Want(t, e.PasswordLogin(org, email, apptest.WeakPassword), 401, "unauthorized_credentials")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": email}, ""), 200, "")
		discoveryReset := e.ResetLink(email, "discovery")
		subject := e.Project.Project.ID + "|" + email
		if n := e.Count(`SELECT COUNT(*) FROM attempt_counters WHERE subject = $1`, subject); n == 0 {
			t.Fatal("the failed login counted nothing about the address")
		}

		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org, nil), 200, "")
		if n := e.Count(`SELECT COUNT(*) FROM attempt_counters WHERE subject = $1`, subject); n != 0 {
			t.Fatalf("%d failure counters about the address remain", n)
		}
		org = e.CreateOrg("acme", "NOT_ALLOWED", nil)
		newcomer := e.CreateMember(org, email)

		wantNoPasswordFor(t, e, org, newcomer, email, apptest.StrongPassword)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset",
			map[string]any{"password_reset_token": discoveryReset, "password": apptest.StrongPassword}, ""), 401, "unable_to_auth_magic_link")
	})
}

// A deleted member still holds its address (a reactivation gives the
// password back), so deleting another organization keeps the password; a
// verified deleted member reactivated afterwards logs in with it. Only a
// purge, which removes that row for good (an admin creating the address
// over a deleted member who never verified it), ends the address's last
// membership and so its password: the member created in its place gets
// none.
func TestDeletedMemberKeepsThePasswordUntilPurged(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const email = "pat@acme.test"
		first := e.CreateOrg("first", "NOT_ALLOWED", nil)
		e.CreateMember(first, email)
		e.SetPassword(first, email, apptest.StrongPassword)
		verified := e.CreateOrg("verified", "NOT_ALLOWED", nil)
		kept := e.CreateVerifiedMember(verified, email)
		unverified := e.CreateOrg("unverified", "NOT_ALLOWED", nil)
		gone := e.CreateMember(unverified, email)
		e.DeleteMember(verified, kept)
		e.DeleteMember(unverified, gone)

		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+first, nil), 200, "")
		if e.PasswordID(verified, kept) == "" {
			t.Fatal("deleting another organization ended the password of a deleted member")
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+verified+"/members/"+kept+"/reactivate", nil), 200, "")
		apptest.Want(t, e.PasswordLogin(verified, email, apptest.StrongPassword), 200, "")

		// The verified member goes for good with its organization; the
		// unverified deleted one is the address's last row, then purged.
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+verified, nil), 200, "")
		if n := e.Count(`SELECT COUNT(*) FROM member_passwords WHERE email_address = $1`, email); n != 1 {
			t.Fatalf("%d passwords of %s while a deleted member holds it", n, email)
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+unverified+"/members", map[string]any{"email_address": email})
		apptest.Want(t, r, 200, "")
		newcomer := r.Body["member_id"].(string)
		if newcomer == gone {
			t.Fatalf("the deleted member %s was not purged", gone)
		}
		wantNoPasswordFor(t, e, unverified, newcomer, email, apptest.StrongPassword)
	})
}

// A member moved off an address no longer holds it: when no other member
// row does, the address's password ends in the change's transaction, as
// with the removal of its last row. Kept, it would pass to whoever is
// next given the address (a recycled staff address in another
// organization), who would show its member_password_id and be logged in,
// and verified, by whoever knew it. The retired entry the change leaves
// reserves the address in its organization only; it logs nobody in. Both
// an admin's change and the member's own verified change end it; while
// another organization's member still holds the address, it stays.
func TestAddressChangeEndsThePasswordOfItsLastHolder(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		const kept = "kept@shared.test"
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		e.CreateMember(other, kept)
		staff := e.CreateMember(f.Acme, kept)
		e.SetPassword(f.Acme, kept, apptest.StrongPassword)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.Acme+"/members/"+staff,
			map[string]any{"email_address": "moved@acme.test"}), 200, "")
		apptest.Want(t, e.PasswordLogin(other, kept, apptest.StrongPassword), 200, "")

		// An admin's change, without proof: bob's old address keeps nothing.
		e.SetPassword(f.Acme, "bob@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.Acme+"/members/"+f.PlainID,
			map[string]any{"email_address": "robert@acme.test"}), 200, "")
		newcomer := e.CreateMember(f.Beta, "bob@acme.test")
		wantNoPasswordFor(t, e, f.Beta, newcomer, "bob@acme.test", apptest.StrongPassword)

		// The member's own change, proven by a code to the new address.
		e.SetPassword(f.Acme, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.StartEmailUpdate(f.Admin, "", map[string]any{"email_address": "ada.new@acme.test",
			"delivery_method": "EMAIL_OTP"}), 200, "")
		_, codes := e.LastMail("ada.new@acme.test")
		if len(codes) != 1 {
			t.Fatalf("codes to the new address: %v", codes)
		}
		apptest.Want(t, e.CheckCode(f.Acme, "ada.new@acme.test", codes[0]), 200, "")
		newcomer = e.CreateMember(f.Beta, "ada@acme.test")
		wantNoPasswordFor(t, e, f.Beta, newcomer, "ada@acme.test", apptest.StrongPassword)
	})
}
