package emailupdate_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/emailupdate"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// retired lists a member's retired addresses as "email_id=address".
func retired(m map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := m["retired_email_addresses"].([]any)
	for _, r := range list {
		r := r.(map[string]any)
		out[r["email_id"].(string)] = r["email_address"].(string)
	}
	return out
}

// emailFactor returns the email factor of a session answer.
func emailFactor(d map[string]any) map[string]any {
	ms, _ := d["member_session"].(map[string]any)
	if ms == nil {
		return nil
	}
	f := ms["authentication_factors"].([]any)[0].(map[string]any)
	ef, _ := f["email_factor"].(map[string]any)
	return ef
}

// The whole change by link: bob asks from his session; the link goes to
// the new address only; redeeming it logs him in with the new address,
// retires the old one and ends every older session; then the new address
// logs in and the old one does not.
func TestEmailUpdateByLink(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		second := e.SessionFor(f.Acme, "bob@acme.test")
		old := checkCodeLogin(e, f.Acme, "bob@acme.test")
		oldEmailID := emailFactor(old)["email_id"].(string)

		r := e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "Robert@Acme.test", "login_redirect_url": apptest.Page,
			"locale": "en"})
		if r.Status != 200 || r.Data()["member_id"] != f.PlainID || apptest.MemberOf(r.Data())["email_address"] != "bob@acme.test" ||
			r.Data()["organization"].(map[string]any)["organization_id"] != f.Acme {
			t.Fatalf("start: %s", r.Raw)
		}
		// Nothing changes until the new address is proven.
		if m := e.MemberByID(f.Acme, f.PlainID); m["email_address"] != "bob@acme.test" || len(retired(m)) != 0 {
			t.Fatalf("member changed before verification: %v", m)
		}
		links, _ := e.LastMail("robert@acme.test")
		if len(links) != 1 {
			t.Fatalf("links to the new address: %v", links)
		}
		token := apptest.MagicLinkToken(t, links[0])

		r = e.RedeemLink(token, nil)
		d := r.Data()
		m := apptest.MemberOf(d)
		// reset_sessions and retired addresses are the backend's: the SDK declares neither on this answer.
		if r.Status != 200 || d["member_session"] == nil || d["reset_sessions"] != nil || m["retired_email_addresses"] != nil ||
			m["email_address"] != "robert@acme.test" ||
			m["email_address_verified"] != true || m["member_id"] != f.PlainID {
			t.Fatalf("redeem: %s", r.Raw)
		}
		if got := retired(e.MemberByID(f.Acme, f.PlainID)); len(got) != 1 || got[oldEmailID] != "bob@acme.test" {
			t.Fatalf("retired = %v, want the old address with its email id %s", got, oldEmailID)
		}
		if ef := emailFactor(d); ef["email_address"] != "robert@acme.test" || ef["email_id"] == oldEmailID {
			t.Fatalf("new session's email factor: %v", ef)
		}
		apptest.WantFactors(t, d, "magic_link/email/PRIMARY")
		fresh := d["session_token"].(string)

		// Older sessions are over; the new one works; the link is spent.
		for _, s := range []string{f.Plain, second} {
			apptest.Want(t, e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, s), 404, "session_not_found")
		}
		if r := e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, fresh); r.Status != 200 ||
			apptest.MemberOf(r.Data())["email_address"] != "robert@acme.test" {
			t.Fatalf("new session: %s", r.Raw)
		}
		apptest.Want(t, e.RedeemLink(token, nil), 401, "unable_to_auth_magic_link")
		// Other members' sessions are untouched.
		if r := e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, f.Admin); r.Status != 200 {
			t.Fatalf("admin session after bob's change: %s", r.Raw)
		}

		// The backend sees the change.
		if m := e.MemberByID(f.Acme, f.PlainID); m["email_address"] != "robert@acme.test" || retired(m)[oldEmailID] != "bob@acme.test" {
			t.Fatalf("backend member: %v", m)
		}
		// The new address logs in; the old one no longer does.
		if d := checkCodeLogin(e, f.Acme, "robert@acme.test"); apptest.MemberOf(d)["member_id"] != f.PlainID {
			t.Fatalf("login with the new address: %v", d)
		}
		if r := e.SendCode(f.Acme, "bob@acme.test"); r.Status == 200 {
			t.Fatalf("the old address still starts a login: %s", r.Raw)
		}
		if r := e.SendLink(f.Acme, "bob@acme.test", nil); r.Status == 200 {
			t.Fatalf("the old address still gets a login link: %s", r.Raw)
		}
	})
}

// checkCodeLogin logs in by email code and returns the session answer.
func checkCodeLogin(e *apptest.Env, org, email string) map[string]any {
	e.T.Helper()
	if r := e.SendCode(org, email); r.Status != 200 {
		e.T.Fatalf("send code to %s: %s", email, r.Raw)
	}
	_, codes := e.LastMail(email)
	r := e.CheckCode(org, email, codes[0])
	if r.Status != 200 || r.Data()["member_session"] == nil {
		e.T.Fatalf("code login of %s: %s", email, r.Raw)
	}
	return r.Data()
}

// The change by code, started by an admin for another member: the code is
// checked with the new address in that organization, counts misses and
// works once.
func TestEmailUpdateByCode(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		r := e.StartEmailUpdate(f.Admin, f.PlainID, map[string]any{"email_address": "robert@acme.test", "delivery_method": "EMAIL_OTP"})
		if r.Status != 200 || r.Data()["member_id"] != f.PlainID || apptest.MemberOf(r.Data())["email_address"] != "bob@acme.test" {
			t.Fatalf("admin start: %s", r.Raw)
		}
		links, codes := e.LastMail("robert@acme.test")
		if len(codes) != 1 || len(links) != 0 {
			t.Fatalf("code mail: links %v codes %v", links, codes)
		}
		code := codes[0]

		// The code proves only the new address, only in this organization.
		apptest.Want(t, e.CheckCode(f.Acme, "bob@acme.test", code), 404, "otp_code_not_found")
		apptest.Want(t, e.CheckCode(f.Beta, "robert@acme.test", code), 404, "otp_code_not_found")
		apptest.Want(t, e.CheckCode(f.Acme, "robert@acme.test", apptest.WrongCode(code)), 404, "otp_code_not_found")
		if m := e.MemberByID(f.Acme, f.PlainID); m["email_address"] != "bob@acme.test" {
			t.Fatalf("changed by a wrong code: %v", m)
		}

		r = e.CheckCode(f.Acme, "robert@acme.test", code)
		d := r.Data()
		if r.Status != 200 || d["member_session"] == nil || apptest.MemberOf(d)["email_address"] != "robert@acme.test" ||
			len(retired(e.MemberByID(f.Acme, f.PlainID))) != 1 {
			t.Fatalf("code authenticate: %s", r.Raw)
		}
		apptest.WantFactors(t, d, "email_otp/email/PRIMARY")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, f.Plain), 404, "session_not_found")
		apptest.Want(t, e.CheckCode(f.Acme, "robert@acme.test", code), 404, "otp_code_not_found")
		if r := e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, d["session_token"].(string)); r.Status != 200 {
			t.Fatalf("new session: %s", r.Raw)
		}

		// The backend face: the secret starts it for any member of the
		// named organization, by link to a registered login URL.
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Beta+"/members/"+f.BetaID+"/start_email_update",
			map[string]any{"email_address": "cyrus@beta.test"})
		if r.Status != 200 || r.Body["member_id"] != f.BetaID || r.Body["member"].(map[string]any)["email_address"] != "cy@beta.test" {
			t.Fatalf("backend start: %s", r.Raw)
		}
		links, _ = e.LastMail("cyrus@beta.test")
		if r := e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil); r.Status != 200 || apptest.MemberOf(r.Data())["email_address"] != "cyrus@beta.test" {
			t.Fatalf("backend-started redeem: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members/"+f.BetaID+"/start_email_update",
			map[string]any{"email_address": "x@beta.test"}), 404, "member_not_found")
	})
}

// What start_email_update refuses, and who may call it.
func TestEmailUpdateRefusals(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		start := func(session, id, email string, extra map[string]any) apptest.Resp {
			body := map[string]any{"email_address": email}
			for k, v := range extra {
				body[k] = v
			}
			return e.StartEmailUpdate(session, id, body)
		}
		apptest.Want(t, start(f.Plain, "", "ADA@acme.test", nil), 400, "duplicate_member_email")
		apptest.Want(t, start(f.Plain, "", "bob@acme.test", nil), 400, "invalid_request")
		apptest.Want(t, start(f.Plain, "", "not-an-email", nil), 400, "invalid_email")
		apptest.Want(t, start(f.Plain, "", "x@acme.test", map[string]any{"delivery_method": "SMS"}), 400, "invalid_request")
		apptest.Want(t, start(f.Plain, "", "x@acme.test", map[string]any{"login_redirect_url": "https://evil.test/"}), 400, "no_match_for_provided_magic_link_url")
		apptest.Want(t, start("", "", "x@acme.test", nil), 401, "user_unauthenticated")
		// Members act on themselves; only admins on others; nobody across
		// organizations.
		apptest.Want(t, start(f.Plain, f.AdminID, "x@acme.test", nil), 403, "unauthorized_action")
		apptest.Want(t, start(f.BetaSession, f.PlainID, "x@acme.test", nil), 404, "member_not_found")
		if r := start(f.Plain, f.PlainID, "bobby@acme.test", nil); r.Status != 200 {
			t.Fatalf("own id through the admin route: %s", r.Raw)
		}
		// A newer start cancels the one in flight.
		first, _ := e.LastMail("bobby@acme.test")
		if r := start(f.Plain, "", "rob@acme.test", map[string]any{"delivery_method": "EMAIL_OTP"}); r.Status != 200 {
			t.Fatalf("second start: %s", r.Raw)
		}
		apptest.Want(t, e.RedeemLink(apptest.MagicLinkToken(t, first[0]), nil), 401, "unable_to_auth_magic_link")

		// RESTRICTED: the new address must be of an allowed domain.
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.Acme, map[string]any{"email_jit_provisioning": "RESTRICTED",
			"email_allowed_domains": []string{"acme.test"}})
		apptest.Want(t, start(f.Admin, "", "ada@elsewhere.test", nil), 403, "invalid_email_for_jit_provisioning")
		if r := start(f.Admin, "", "ada.l@acme.test", nil); r.Status != 200 {
			t.Fatalf("allowed domain: %s", r.Raw)
		}
		// Deleted members cannot change address.
		dee := e.CreateMember(f.Acme, "dee@acme.test")
		e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.Acme+"/members/"+dee, nil)
		apptest.Want(t, start(f.Admin, dee, "dee2@acme.test", nil), 400, "email_updates_available_only_for_active_members")
		// A member who never proved their address has no self-serve
		// update: an admin changes it (members update) instead.
		una := e.CreateMember(f.Acme, "una@acme.test")
		apptest.Want(t, start(f.Admin, una, "una2@acme.test", nil), 400, "member_has_no_active_verified_email")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members/"+una+"/start_email_update",
			map[string]any{"email_address": "una2@acme.test"}), 400, "member_has_no_active_verified_email")
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE member_id = $1`, una); n != 0 {
			t.Fatalf("%d links for the refused update", n)
		}

		// Sends are rate-limited per member.
		limited := false
		for i := 0; i < 8 && !limited; i++ {
			limited = start(f.Plain, "", "limit@acme.test", nil).ErrType() == "too_many_requests"
		}
		if !limited {
			t.Fatal("start_email_update is not rate-limited")
		}
	})
}

// A retired address stays its member's until unlinked: no other member
// may take it. Unlinking works for oneself, for admins on others, and on
// the backend face; never across organizations.
func TestUnlinkRetiredEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		change := func(session, id, from, to string) map[string]any {
			t.Helper()
			if r := e.StartEmailUpdate(session, id, map[string]any{"email_address": to}); r.Status != 200 {
				t.Fatalf("start %s -> %s: %s", from, to, r.Raw)
			}
			links, _ := e.LastMail(to)
			r := e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil)
			if r.Status != 200 {
				t.Fatalf("redeem %s -> %s: %s", from, to, r.Raw)
			}
			return r.Data()
		}
		d := change(f.Plain, "", "bob@acme.test", "robert@acme.test")
		bob := d["session_token"].(string)
		d = change(bob, "", "robert@acme.test", "bobby@acme.test")
		bob = d["session_token"].(string)
		ret := retired(e.MemberByID(f.Acme, f.PlainID))
		if len(ret) != 2 {
			t.Fatalf("retired after two changes: %v", ret)
		}
		// Lists of members carry them too.
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{f.Acme}})
		found := false
		for _, m := range r.Body["members"].([]any) {
			if m := m.(map[string]any); m["member_id"] == f.PlainID {
				found = len(retired(m)) == 2
			}
		}
		if r.Status != 200 || !found {
			t.Fatalf("member search lacks the retired addresses: %s", r.Raw)
		}

		// Reserved: another member cannot have it, by create or by change.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members", map[string]any{"email_address": "bob@acme.test"}),
			400, "duplicate_member_email")
		apptest.Want(t, e.StartEmailUpdate(f.Admin, "", map[string]any{"email_address": "robert@acme.test"}), 400, "duplicate_member_email")
		// Other organizations are not affected by acme's reservations.
		if r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Beta+"/members", map[string]any{"email_address": "bob@acme.test"}); r.Status != 200 {
			t.Fatalf("beta member with acme's retired address: %s", r.Raw)
		}

		unlink := func(session, id string, body map[string]any) apptest.Resp {
			path := "/b2b/organizations/members/unlink_retired_email"
			if id != "" {
				path = "/b2b/organizations/members/" + id + "/unlink_retired_email"
			}
			return e.SDK(http.MethodPost, path, body, session)
		}
		apptest.Want(t, unlink(bob, "", map[string]any{}), 400, "invalid_request")
		apptest.Want(t, unlink(bob, "", map[string]any{"email_address": "nobody@acme.test"}), 404, "email_not_found")
		var bobID, robertID string
		for id, a := range ret {
			if a == "bob@acme.test" {
				bobID = id
			} else {
				robertID = id
			}
		}
		apptest.Want(t, unlink(bob, "", map[string]any{"email_id": bobID, "email_address": "robert@acme.test"}), 404, "email_not_found")
		apptest.Want(t, unlink(bob, f.AdminID, map[string]any{"email_address": "ada@acme.test"}), 403, "unauthorized_action")
		apptest.Want(t, unlink(f.BetaSession, f.PlainID, map[string]any{"email_id": bobID}), 404, "member_not_found")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Beta+"/members/"+f.PlainID+"/unlink_retired_email",
			map[string]any{"email_id": bobID}), 404, "member_not_found")

		// Self, by address.
		r = unlink(bob, "", map[string]any{"email_address": "BOB@acme.test"})
		if got := retired(e.MemberByID(f.Acme, f.PlainID)); r.Status != 200 || len(got) != 1 || got[robertID] != "robert@acme.test" {
			t.Fatalf("self unlink: %s", r.Raw)
		}
		if r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members", map[string]any{"email_address": "bob@acme.test"}); r.Status != 200 {
			t.Fatalf("unlinked address is free again: %s", r.Raw)
		}
		// Admin, by id, through the SDK; then the backend face.
		r = unlink(f.Admin, f.PlainID, map[string]any{"email_id": robertID})
		if r.Status != 200 || len(retired(e.MemberByID(f.Acme, f.PlainID))) != 0 || r.Data()["member_id"] != f.PlainID {
			t.Fatalf("admin unlink: %s", r.Raw)
		}
		change(bob, "", "bobby@acme.test", "b@acme.test")
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members/"+f.PlainID+"/unlink_retired_email",
			map[string]any{"email_address": "bobby@acme.test"})
		if r.Status != 200 || len(retired(r.Body["member"].(map[string]any))) != 0 || r.Body["organization"] == nil ||
			r.Body["organization_id"] != f.Acme || r.Body["member_id"] != f.PlainID {
			t.Fatalf("backend unlink: %s", r.Raw)
		}
	})
}

// start_email_update sends are limited per member across addresses (one
// member cannot mail many inboxes) and per address across members (many
// members cannot flood one inbox). Each limit alone is held here: the
// member's sends go to different addresses, and the address's starts are
// for different members (the first is sent; the others, refused while it
// is in flight, count as a refused start does).
func TestEmailUpdateSendLimits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		start := func(session, id, email string) apptest.Resp {
			return e.StartEmailUpdate(session, id, map[string]any{"email_address": email})
		}
		for i := range emailupdate.SendPerMember.Limit {
			if r := start(f.Plain, "", fmt.Sprintf("new%d@acme.test", i)); r.Status != 200 {
				t.Fatalf("member's send %d: %s", i, r.Raw)
			}
		}
		apptest.Want(t, start(f.Plain, "", "another@acme.test"), 429, "too_many_requests")

		for i := range emailupdate.SendPerEmail.Limit {
			m := e.CreateVerifiedMember(f.Acme, fmt.Sprintf("m%d@acme.test", i))
			if r := start(f.Admin, m, "target@acme.test"); i == 0 && r.Status != 200 ||
				i > 0 && r.ErrType() != "duplicate_member_email" {
				t.Fatalf("address's send %d: %s", i, r.Raw)
			}
		}
		m := e.CreateVerifiedMember(f.Acme, "last@acme.test")
		apptest.Want(t, start(f.Admin, m, "target@acme.test"), 429, "too_many_requests")
	})
}

// The per-address limit is the project's, not each organization's: whoever
// can create organizations does not get a fresh allowance to mail one
// inbox from each. Acme's starts for the address use it up; a start for it
// from beta, another organization of the project, is refused, while
// another project keeps its own allowance.
func TestEmailUpdateSendLimitPerAddressSpansOrganizations(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		for i := range emailupdate.SendPerEmail.Limit {
			m := e.CreateVerifiedMember(f.Acme, fmt.Sprintf("m%d@acme.test", i))
			if r := e.StartEmailUpdate(f.Admin, m, map[string]any{"email_address": "victim@inbox.test"}); i == 0 && r.Status != 200 ||
				i > 0 && r.ErrType() != "duplicate_member_email" {
				t.Fatalf("acme's send %d: %s", i, r.Raw)
			}
		}
		apptest.Want(t, e.StartEmailUpdate(f.BetaSession, "", map[string]any{"email_address": "victim@inbox.test"}), 429, "too_many_requests")

		e.Project = e.NewProject("Someone Else's App")
		other := e.NewMeFixture()
		apptest.Want(t, e.StartEmailUpdate(other.BetaSession, "", map[string]any{"email_address": "victim@inbox.test"}), 200, "")
	})
}

// A refused start counts against the send limits as a sent one does: a
// member cannot ask, without limit, which addresses are other members'
// (duplicate_member_email), and once the limit is reached a taken and a
// free address answer alike.
func TestEmailUpdateRefusedStartsCount(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		start := func(email string) apptest.Resp {
			return e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": email})
		}
		for range emailupdate.SendPerMember.Limit {
			apptest.Want(t, start("ada@acme.test"), 400, "duplicate_member_email")
		}
		apptest.Want(t, start("ada@acme.test"), 429, "too_many_requests")
		apptest.Want(t, start("free@acme.test"), 429, "too_many_requests")
	})
}

// From browsers, start_email_update is also limited per client address:
// past SendPerIP sends from one address (spread over members and new
// addresses so neither of their limits is reached) the SDK face refuses,
// while the backend face, which has no client address, still sends.
func TestEmailUpdateSendLimitPerClientAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		per := emailupdate.SendPerMember.Limit
		sent := 0
		for i := 0; sent < emailupdate.SendPerIP.Limit; i++ {
			m := e.CreateVerifiedMember(f.Acme, fmt.Sprintf("ip%d@acme.test", i))
			for j := 0; j < per && sent < emailupdate.SendPerIP.Limit; j++ {
				r := e.StartEmailUpdate(f.Admin, m, map[string]any{"email_address": fmt.Sprintf("ip%d-%d@acme.test", i, j)})
				if r.Status != 200 {
					t.Fatalf("send %d: %s", sent, r.Raw)
				}
				sent++
			}
		}
		m := e.CreateVerifiedMember(f.Acme, "ip-last@acme.test")
		apptest.Want(t, e.StartEmailUpdate(f.Admin, m, map[string]any{"email_address": "ip-last-new@acme.test"}), 429, "too_many_requests")
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members/"+m+"/start_email_update",
			map[string]any{"email_address": "ip-last-new@acme.test"})
		if r.Status != 200 {
			t.Fatalf("backend face after the client address's limit: %s", r.Raw)
		}
	})
}

// An email-update link or code that could not be sent is cancelled: with no
// delivery configured, start_email_update answers email_delivery_failed
// and leaves no live secret for the member, so one nobody received cannot
// be redeemed later.
func TestEmailUpdateFailedDeliveryLeavesNoLiveSecret(t *testing.T) {
	apptest.Schema.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.New(t, db, func(c *config.Config) {
			c.Dev, c.SMTPURL, c.EncryptionKey = false, "", apptest.TestEncryptionKey
		})
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		m := e.CreateVerifiedMember(org, "ada@acme.test")
		path := "/v1/b2b/organizations/" + org + "/members/" + m + "/start_email_update"
		apptest.Want(t, e.Backend(http.MethodPost, path, map[string]any{"email_address": "ada.new@acme.test"}), 503, "email_delivery_failed")
		apptest.Want(t, e.Backend(http.MethodPost, path, map[string]any{"email_address": "ada.new@acme.test",
			"delivery_method": emailupdate.DeliveryOTP}), 503, "email_delivery_failed")
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE purpose = 'email_update'`); n != 1 {
			t.Fatalf("%d email-update links stored, want the cancelled one", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM email_update_otps`); n != 1 {
			t.Fatalf("%d email-update codes stored, want the cancelled one", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE purpose = 'email_update' AND used_at IS NULL`) +
			e.Count(`SELECT COUNT(*) FROM email_update_otps WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live email-update secrets after failed deliveries", n)
		}
	})
}

// The SDK face sends only what the project offers the browser: a link needs
// the email magic links product, a code the email OTP product.
func TestEmailUpdateSDKNeedsTheProduct(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		products := func(p ...string) {
			if _, err := e.App.Projects.Update(t.Context(), e.Project.Project.ID, project.Update{Products: &p}); err != nil {
				t.Fatal(err)
			}
		}
		products("emailOtp")
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "bob.new@acme.test"}), 401, "endpoint_not_authorized_for_sdk")
		products("emailMagicLinks")
		apptest.Want(t, e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "bob.new@acme.test",
			"delivery_method": emailupdate.DeliveryOTP}), 401, "endpoint_not_authorized_for_sdk")
		if r := e.StartEmailUpdate(f.Plain, "", map[string]any{"email_address": "bob.new@acme.test"}); r.Status != 200 {
			t.Fatalf("link with the product: %s", r.Raw)
		}
	})
}
