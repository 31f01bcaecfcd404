package app_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/emailupdate"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// startUpdate calls SDK start_email_update: for the session's own member
// when memberID is "", else through the {member_id} route.
func startUpdate(e *apptest.Env, session, memberID string, body map[string]any) apptest.Resp {
	e.T.Helper()
	path := "/b2b/organizations/members/start_email_update"
	if memberID != "" {
		path = "/b2b/organizations/members/" + memberID + "/start_email_update"
	}
	return sdkAs(e, http.MethodPost, path, body, session)
}

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
		f := newMeFixture(t, e)
		second := sessionFor(e, f.acme, "bob@acme.test")
		old := checkCodeLogin(e, f.acme, "bob@acme.test")
		oldEmailID := emailFactor(old)["email_id"].(string)

		r := startUpdate(e, f.plain, "", map[string]any{"email_address": "Robert@Acme.test", "login_redirect_url": apptest.Page,
			"locale": "en"})
		if r.Status != 200 || r.Data()["member_id"] != f.plainID || member(r.Data())["email_address"] != "bob@acme.test" ||
			r.Data()["organization"].(map[string]any)["organization_id"] != f.acme {
			t.Fatalf("start: %s", r.Raw)
		}
		// Nothing changes until the new address is proven.
		if m := memberByID(e, f.acme, f.plainID); m["email_address"] != "bob@acme.test" || len(retired(m)) != 0 {
			t.Fatalf("member changed before verification: %v", m)
		}
		links, _ := e.LastMail("robert@acme.test")
		if len(links) != 1 {
			t.Fatalf("links to the new address: %v", links)
		}
		token := tokenFrom(t, e, links[0])

		r = redeem(e, token, nil)
		d := r.Data()
		m := member(d)
		// reset_sessions and retired addresses are the backend's: the SDK declares neither on this answer.
		if r.Status != 200 || d["member_session"] == nil || d["reset_sessions"] != nil || m["retired_email_addresses"] != nil ||
			m["email_address"] != "robert@acme.test" ||
			m["email_address_verified"] != true || m["member_id"] != f.plainID {
			t.Fatalf("redeem: %s", r.Raw)
		}
		if got := retired(memberByID(e, f.acme, f.plainID)); len(got) != 1 || got[oldEmailID] != "bob@acme.test" {
			t.Fatalf("retired = %v, want the old address with its email id %s", got, oldEmailID)
		}
		if ef := emailFactor(d); ef["email_address"] != "robert@acme.test" || ef["email_id"] == oldEmailID {
			t.Fatalf("new session's email factor: %v", ef)
		}
		wantFactors(t, d, "magic_link/email/PRIMARY")
		fresh := d["session_token"].(string)

		// Older sessions are over; the new one works; the link is spent.
		for _, s := range []string{f.plain, second} {
			apptest.Want(t, sdkAs(e, http.MethodGet, "/b2b/organizations/members/me", nil, s), 404, "session_not_found")
		}
		if r := sdkAs(e, http.MethodGet, "/b2b/organizations/members/me", nil, fresh); r.Status != 200 ||
			member(r.Data())["email_address"] != "robert@acme.test" {
			t.Fatalf("new session: %s", r.Raw)
		}
		apptest.Want(t, redeem(e, token, nil), 401, "unable_to_auth_magic_link")
		// Other members' sessions are untouched.
		if r := sdkAs(e, http.MethodGet, "/b2b/organizations/members/me", nil, f.admin); r.Status != 200 {
			t.Fatalf("admin session after bob's change: %s", r.Raw)
		}

		// The backend sees the change.
		if m := memberByID(e, f.acme, f.plainID); m["email_address"] != "robert@acme.test" || retired(m)[oldEmailID] != "bob@acme.test" {
			t.Fatalf("backend member: %v", m)
		}
		// The new address logs in; the old one no longer does.
		if d := checkCodeLogin(e, f.acme, "robert@acme.test"); member(d)["member_id"] != f.plainID {
			t.Fatalf("login with the new address: %v", d)
		}
		if r := sendCode(e, f.acme, "bob@acme.test"); r.Status == 200 {
			t.Fatalf("the old address still starts a login: %s", r.Raw)
		}
		if r := sendLink(e, f.acme, "bob@acme.test", nil); r.Status == 200 {
			t.Fatalf("the old address still gets a login link: %s", r.Raw)
		}
	})
}

// checkCodeLogin logs in by email code and returns the session answer.
func checkCodeLogin(e *apptest.Env, org, email string) map[string]any {
	e.T.Helper()
	if r := sendCode(e, org, email); r.Status != 200 {
		e.T.Fatalf("send code to %s: %s", email, r.Raw)
	}
	_, codes := e.LastMail(email)
	r := checkCode(e, org, email, codes[0])
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
		f := newMeFixture(t, e)
		r := startUpdate(e, f.admin, f.plainID, map[string]any{"email_address": "robert@acme.test", "delivery_method": "EMAIL_OTP"})
		if r.Status != 200 || r.Data()["member_id"] != f.plainID || member(r.Data())["email_address"] != "bob@acme.test" {
			t.Fatalf("admin start: %s", r.Raw)
		}
		links, codes := e.LastMail("robert@acme.test")
		if len(codes) != 1 || len(links) != 0 {
			t.Fatalf("code mail: links %v codes %v", links, codes)
		}
		code := codes[0]

		// The code proves only the new address, only in this organization.
		apptest.Want(t, checkCode(e, f.acme, "bob@acme.test", code), 404, "otp_code_not_found")
		apptest.Want(t, checkCode(e, f.beta, "robert@acme.test", code), 404, "otp_code_not_found")
		apptest.Want(t, checkCode(e, f.acme, "robert@acme.test", wrongCode(code)), 404, "otp_code_not_found")
		if m := memberByID(e, f.acme, f.plainID); m["email_address"] != "bob@acme.test" {
			t.Fatalf("changed by a wrong code: %v", m)
		}

		r = checkCode(e, f.acme, "robert@acme.test", code)
		d := r.Data()
		if r.Status != 200 || d["member_session"] == nil || member(d)["email_address"] != "robert@acme.test" ||
			len(retired(memberByID(e, f.acme, f.plainID))) != 1 {
			t.Fatalf("code authenticate: %s", r.Raw)
		}
		wantFactors(t, d, "otp/email/PRIMARY")
		apptest.Want(t, sdkAs(e, http.MethodGet, "/b2b/organizations/members/me", nil, f.plain), 404, "session_not_found")
		apptest.Want(t, checkCode(e, f.acme, "robert@acme.test", code), 404, "otp_code_not_found")
		if r := sdkAs(e, http.MethodGet, "/b2b/organizations/members/me", nil, d["session_token"].(string)); r.Status != 200 {
			t.Fatalf("new session: %s", r.Raw)
		}

		// The backend face: the secret starts it for any member of the
		// named organization, by link to a registered login URL.
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.beta+"/members/"+f.betaID+"/start_email_update",
			map[string]any{"email_address": "cyrus@beta.test"})
		if r.Status != 200 || r.Body["member_id"] != f.betaID || r.Body["member"].(map[string]any)["email_address"] != "cy@beta.test" {
			t.Fatalf("backend start: %s", r.Raw)
		}
		links, _ = e.LastMail("cyrus@beta.test")
		if r := redeem(e, tokenFrom(t, e, links[0]), nil); r.Status != 200 || member(r.Data())["email_address"] != "cyrus@beta.test" {
			t.Fatalf("backend-started redeem: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.acme+"/members/"+f.betaID+"/start_email_update",
			map[string]any{"email_address": "x@beta.test"}), 404, "member_not_found")
	})
}

// What start_email_update refuses, and who may call it.
func TestEmailUpdateRefusals(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newMeFixture(t, e)
		start := func(session, id, email string, extra map[string]any) apptest.Resp {
			body := map[string]any{"email_address": email}
			for k, v := range extra {
				body[k] = v
			}
			return startUpdate(e, session, id, body)
		}
		apptest.Want(t, start(f.plain, "", "ADA@acme.test", nil), 400, "duplicate_member_email")
		apptest.Want(t, start(f.plain, "", "bob@acme.test", nil), 400, "invalid_request")
		apptest.Want(t, start(f.plain, "", "not-an-email", nil), 400, "invalid_email")
		apptest.Want(t, start(f.plain, "", "x@acme.test", map[string]any{"delivery_method": "SMS"}), 400, "invalid_request")
		apptest.Want(t, start(f.plain, "", "x@acme.test", map[string]any{"login_redirect_url": "https://evil.test/"}), 400, "redirect_url_not_registered")
		apptest.Want(t, start("", "", "x@acme.test", nil), 401, "user_unauthenticated")
		// Members act on themselves; only admins on others; nobody across
		// organizations.
		apptest.Want(t, start(f.plain, f.adminID, "x@acme.test", nil), 403, "unauthorized_action")
		apptest.Want(t, start(f.betaSession, f.plainID, "x@acme.test", nil), 404, "member_not_found")
		if r := start(f.plain, f.plainID, "bobby@acme.test", nil); r.Status != 200 {
			t.Fatalf("own id through the admin route: %s", r.Raw)
		}
		// A newer start cancels the one in flight.
		first, _ := e.LastMail("bobby@acme.test")
		if r := start(f.plain, "", "rob@acme.test", map[string]any{"delivery_method": "EMAIL_OTP"}); r.Status != 200 {
			t.Fatalf("second start: %s", r.Raw)
		}
		apptest.Want(t, redeem(e, tokenFrom(t, e, first[0]), nil), 401, "unable_to_auth_magic_link")

		// RESTRICTED: the new address must be of an allowed domain.
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.acme, map[string]any{"email_jit_provisioning": "RESTRICTED",
			"email_allowed_domains": []string{"acme.test"}})
		apptest.Want(t, start(f.admin, "", "ada@elsewhere.test", nil), 403, "invalid_email_for_jit_provisioning")
		if r := start(f.admin, "", "ada.l@acme.test", nil); r.Status != 200 {
			t.Fatalf("allowed domain: %s", r.Raw)
		}
		// Deleted members cannot change address.
		dee := e.CreateMember(f.acme, "dee@acme.test")
		e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+f.acme+"/members/"+dee, nil)
		apptest.Want(t, start(f.admin, dee, "dee2@acme.test", nil), 403, "inactive_member")

		// Sends are rate-limited per member.
		limited := false
		for i := 0; i < 8 && !limited; i++ {
			limited = start(f.plain, "", "limit@acme.test", nil).ErrType() == "too_many_requests"
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
		f := newMeFixture(t, e)
		change := func(session, id, from, to string) map[string]any {
			t.Helper()
			if r := startUpdate(e, session, id, map[string]any{"email_address": to}); r.Status != 200 {
				t.Fatalf("start %s -> %s: %s", from, to, r.Raw)
			}
			links, _ := e.LastMail(to)
			r := redeem(e, tokenFrom(t, e, links[0]), nil)
			if r.Status != 200 {
				t.Fatalf("redeem %s -> %s: %s", from, to, r.Raw)
			}
			return r.Data()
		}
		d := change(f.plain, "", "bob@acme.test", "robert@acme.test")
		bob := d["session_token"].(string)
		d = change(bob, "", "robert@acme.test", "bobby@acme.test")
		bob = d["session_token"].(string)
		ret := retired(memberByID(e, f.acme, f.plainID))
		if len(ret) != 2 {
			t.Fatalf("retired after two changes: %v", ret)
		}
		// Lists of members carry them too.
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{f.acme}})
		found := false
		for _, m := range r.Body["members"].([]any) {
			if m := m.(map[string]any); m["member_id"] == f.plainID {
				found = len(retired(m)) == 2
			}
		}
		if r.Status != 200 || !found {
			t.Fatalf("member search lacks the retired addresses: %s", r.Raw)
		}

		// Reserved: another member cannot have it, by create or by change.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.acme+"/members", map[string]any{"email_address": "bob@acme.test"}),
			400, "duplicate_member_email")
		apptest.Want(t, startUpdate(e, f.admin, "", map[string]any{"email_address": "robert@acme.test"}), 400, "duplicate_member_email")
		// Other organizations are not affected by acme's reservations.
		if r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.beta+"/members", map[string]any{"email_address": "bob@acme.test"}); r.Status != 200 {
			t.Fatalf("beta member with acme's retired address: %s", r.Raw)
		}

		unlink := func(session, id string, body map[string]any) apptest.Resp {
			path := "/b2b/organizations/members/unlink_retired_email"
			if id != "" {
				path = "/b2b/organizations/members/" + id + "/unlink_retired_email"
			}
			return sdkAs(e, http.MethodPost, path, body, session)
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
		apptest.Want(t, unlink(bob, f.adminID, map[string]any{"email_address": "ada@acme.test"}), 403, "unauthorized_action")
		apptest.Want(t, unlink(f.betaSession, f.plainID, map[string]any{"email_id": bobID}), 404, "member_not_found")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.beta+"/members/"+f.plainID+"/unlink_retired_email",
			map[string]any{"email_id": bobID}), 404, "member_not_found")

		// Self, by address.
		r = unlink(bob, "", map[string]any{"email_address": "BOB@acme.test"})
		if got := retired(memberByID(e, f.acme, f.plainID)); r.Status != 200 || len(got) != 1 || got[robertID] != "robert@acme.test" {
			t.Fatalf("self unlink: %s", r.Raw)
		}
		if r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.acme+"/members", map[string]any{"email_address": "bob@acme.test"}); r.Status != 200 {
			t.Fatalf("unlinked address is free again: %s", r.Raw)
		}
		// Admin, by id, through the SDK; then the backend face.
		r = unlink(f.admin, f.plainID, map[string]any{"email_id": robertID})
		if r.Status != 200 || len(retired(memberByID(e, f.acme, f.plainID))) != 0 || r.Data()["member_id"] != f.plainID {
			t.Fatalf("admin unlink: %s", r.Raw)
		}
		change(bob, "", "bobby@acme.test", "b@acme.test")
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.acme+"/members/"+f.plainID+"/unlink_retired_email",
			map[string]any{"email_address": "bobby@acme.test"})
		if r.Status != 200 || len(retired(r.Body["member"].(map[string]any))) != 0 || r.Body["organization"] == nil ||
			r.Body["organization_id"] != f.acme || r.Body["member_id"] != f.plainID {
			t.Fatalf("backend unlink: %s", r.Raw)
		}
	})
}

// start_email_update sends are limited per member across addresses (one
// member cannot mail many inboxes) and per address across members (many
// members cannot flood one inbox). Each limit alone is held here: the
// member's sends go to different addresses, and the address's sends are
// for different members.
func TestEmailUpdateSendLimits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newMeFixture(t, e)
		start := func(session, id, email string) apptest.Resp {
			return startUpdate(e, session, id, map[string]any{"email_address": email})
		}
		for i := range emailupdate.SendPerMember.Limit {
			if r := start(f.plain, "", fmt.Sprintf("new%d@acme.test", i)); r.Status != 200 {
				t.Fatalf("member's send %d: %s", i, r.Raw)
			}
		}
		apptest.Want(t, start(f.plain, "", "another@acme.test"), 429, "too_many_requests")

		for i := range emailupdate.SendPerEmail.Limit {
			m := e.CreateMember(f.acme, fmt.Sprintf("m%d@acme.test", i))
			if r := start(f.admin, m, "target@acme.test"); r.Status != 200 {
				t.Fatalf("address's send %d: %s", i, r.Raw)
			}
		}
		m := e.CreateMember(f.acme, "last@acme.test")
		apptest.Want(t, start(f.admin, m, "target@acme.test"), 429, "too_many_requests")
	})
}

// From browsers, start_email_update is also limited per client address:
// past SendPerIP sends from one address (spread over members and new
// addresses so neither of their limits is reached) the SDK face refuses,
// while the backend face, which has no client address, still sends.
func TestEmailUpdateSendLimitPerClientAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newMeFixture(t, e)
		per := emailupdate.SendPerMember.Limit
		sent := 0
		for i := 0; sent < emailupdate.SendPerIP.Limit; i++ {
			m := e.CreateMember(f.acme, fmt.Sprintf("ip%d@acme.test", i))
			for j := 0; j < per && sent < emailupdate.SendPerIP.Limit; j++ {
				r := startUpdate(e, f.admin, m, map[string]any{"email_address": fmt.Sprintf("ip%d-%d@acme.test", i, j)})
				if r.Status != 200 {
					t.Fatalf("send %d: %s", sent, r.Raw)
				}
				sent++
			}
		}
		m := e.CreateMember(f.acme, "ip-last@acme.test")
		apptest.Want(t, startUpdate(e, f.admin, m, map[string]any{"email_address": "ip-last-new@acme.test"}), 429, "too_many_requests")
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+f.acme+"/members/"+m+"/start_email_update",
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
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.New(t, db, func(c *config.Config) {
			c.Dev, c.SMTPURL, c.EncryptionKey = false, "", apptest.TestEncryptionKey
		})
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		m := e.CreateMember(org, "ada@acme.test")
		path := "/v1/b2b/organizations/" + org + "/members/" + m + "/start_email_update"
		apptest.Want(t, e.Backend(http.MethodPost, path, map[string]any{"email_address": "ada.new@acme.test"}), 503, "email_delivery_failed")
		apptest.Want(t, e.Backend(http.MethodPost, path, map[string]any{"email_address": "ada.new@acme.test",
			"delivery_method": emailupdate.DeliveryOTP}), 503, "email_delivery_failed")
		if n := countRows(e, `SELECT COUNT(*) FROM magic_links WHERE purpose = 'email_update'`); n != 1 {
			t.Fatalf("%d email-update links stored, want the cancelled one", n)
		}
		if n := countRows(e, `SELECT COUNT(*) FROM email_update_otps`); n != 1 {
			t.Fatalf("%d email-update codes stored, want the cancelled one", n)
		}
		if n := countRows(e, `SELECT COUNT(*) FROM magic_links WHERE purpose = 'email_update' AND used_at IS NULL`) +
			countRows(e, `SELECT COUNT(*) FROM email_update_otps WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live email-update secrets after failed deliveries", n)
		}
	})
}

// The SDK face sends only what the project offers the browser: a link needs
// the email magic links product, a code the email OTP product.
func TestEmailUpdateSDKNeedsTheProduct(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := newMeFixture(t, e)
		products := func(p ...string) {
			if _, err := e.App.Projects.Update(t.Context(), e.Project.Project.ID, project.Update{Products: &p}); err != nil {
				t.Fatal(err)
			}
		}
		products("emailOtp")
		apptest.Want(t, startUpdate(e, f.plain, "", map[string]any{"email_address": "bob.new@acme.test"}), 403, "product_not_enabled")
		products("emailMagicLinks")
		apptest.Want(t, startUpdate(e, f.plain, "", map[string]any{"email_address": "bob.new@acme.test",
			"delivery_method": emailupdate.DeliveryOTP}), 403, "product_not_enabled")
		if r := startUpdate(e, f.plain, "", map[string]any{"email_address": "bob.new@acme.test"}); r.Status != 200 {
			t.Fatalf("link with the product: %s", r.Raw)
		}
	})
}
