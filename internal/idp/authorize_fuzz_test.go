package idp

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
)

// FuzzAuthorizeRequest sends the relying party's authorization request
// parameters, as a browser anyone controls carries them to the widget,
// through start and submit (what authorize/start and authorize/submit run
// once the member is known) for clients registered with their own redirect
// URIs. Properties, checked against the fixture's registrations and the
// stored code, not against the provider's own helpers:
//
//   - a refusal that is not a redirect (the widget shows it on the page)
//     is a catalogue 4xx, and happens only when client_id is unknown or
//     redirect_uri is not byte-equal to one registered for it; with both
//     good, every refusal is an RFC 6749 4.1.2.1 error redirect;
//   - every redirect, error or code, goes to the request's redirect_uri,
//     byte-equal to one registered for that client, carrying state
//     unchanged (absent when the request had none) and iss;
//   - a code is issued only for response_type code, with PKCE as the
//     README says (S256 only, a well-formed challenge, required of public
//     clients), stored with the request's challenge, redirect URI and
//     nonce unchanged; its scopes are some of those requested (or the
//     default openid email profile), never full_access for an app that
//     may not hold it, and hold openid exactly when it was requested, so
//     an ID token is issued exactly when the client asked for one;
//   - start succeeds only for a good client and redirect URI, and lists
//     exactly the requested scopes, full_access grantable only to an app
//     that may hold it.
func FuzzAuthorizeRequest(f *testing.F) {
	x := newFuzzFixture(f)
	challenge := flowtoken.S256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier")
	// which: the low two bits pick the client (conf, pub, first, or the
	// raw client_id, 3, which may also name one: the denied app is only
	// reachable so); 0x04 submits without consent; 0x08 authorizes with an
	// authentication an hour old; 0x10 has no session (prompt=none).
	for _, s := range []struct {
		which                                                                   uint8
		clientID, redirect, responseType, scopes, prompt, state, nonce, chal, m string
		maxAge                                                                  int64
	}{
		{0, "", "https://rp.test/cb", "code", "openid", "", "st-1", "n-0S6_WzA2Mj", challenge, "S256", -1},
		{0, "", "https://rp.test/cb", "code", "openid full_access", "", "st-1", "n-1", challenge, "S256", -1},
		{0, "", "https://rp.test/cb?tenant=a%20b", "code", "openid,email profile", "", "st 1&x=y#z", "n-1", "", "", -1},
		{1, "", "http://localhost:4000/cb", "code", "openid offline_access", "consent", "st-1", "", challenge, "", 0},
		{1, "", "http://localhost:4000/cb", "code", "openid", "", "st-1", "", "", "", -1},
		{2, "", "https://first.test/cb", "", "openid full_access", "login", "", "n", challenge, "S256", 3600},
		{0, "", "https://rp.test/cb", "code", "openid full_access", "", "s", "n", challenge, "plain", -1},
		{0, "", "https://rp.test/cb", "token", "openid", "none", "s", "n", challenge, "S256", -1},
		{0, "", "https://rp.test/cb/", "code", "openid", "", "s", "n", challenge, "S256", -1},
		{0, "", "https://RP.test/cb", "code", "openid", "", "s", "n", challenge, "S256", -1},
		{1, "", "https://rp.test/cb", "code", "openid", "", "s", "n", challenge, "S256", -1},
		{3, "connected-app-test-unknown", "https://rp.test/cb", "code", "openid", "", "s", "n", challenge, "S256", -1},
		{0, "", "https://rp.test/cb", "code", "launch:missiles openid", "", "s", "n", challenge, "S256", -1},
		{0, "", "https://rp.test/cb", "code", "", "select_account", "s", "n", challenge[:42], "S256", -1},
		{0x04, "", "https://rp.test/cb", "code", "phone", "none", "s", "n", challenge, "S256", -1},
		{0x08, "", "https://rp.test/cb", "code", "openid", "", "s", "n", challenge, "S256", 60},
		{0x10, "", "https://rp.test/cb", "code", "openid", "none", "s", "n", challenge, "S256", -1},
		{0x10, "", "https://evil.test/cb", "code", "openid", "none", "s", "n", challenge, "S256", -1},
	} {
		f.Add(s.which, s.clientID, s.redirect, s.responseType, s.scopes, s.prompt, s.state, s.nonce, s.chal, s.m, s.maxAge)
	}
	f.Fuzz(func(t *testing.T, which uint8, clientID, redirect, responseType, scopes, prompt, state, nonce, chal, method string, maxAge int64) {
		for _, s := range []string{clientID, redirect, responseType, scopes, prompt, state, nonce, chal, method} {
			if !httpapi.Clean(s) {
				return // the edge refuses NUL and invalid UTF-8 (httpapi.WithCleanInput)
			}
		}
		ctx := context.Background()
		x.clk.Advance(time.Minute) // keep the per-member issuing limit's window rolling
		switch which & 3 {
		case 0:
			clientID = x.conf.ClientID
		case 1:
			clientID = x.pub.ClientID
		case 2:
			clientID = x.first.ClientID
		}
		req := &AuthorizeRequest{ClientID: clientID, RedirectURI: redirect, ResponseType: responseType, Prompt: prompt,
			State: state, Nonce: nonce, CodeChallenge: chal, CodeChallengeMethod: method, ConsentGranted: which&0x04 == 0}
		if scopes != "" {
			req.Scopes = strings.Split(scopes, ",")
		}
		if maxAge >= 0 { // the request's decoding refuses a negative max_age (MaxAge.UnmarshalJSON)
			m := MaxAge(maxAge)
			req.MaxAge = &m
		}
		var who *authorizer
		if which&0x10 == 0 {
			who = &authorizer{member: x.member, org: x.org, roles: x.member.RoleIDs(), authTime: x.clk.Now(), lineage: "lineage-fuzz"}
			if which&0x08 != 0 {
				who.authTime = who.authTime.Add(-time.Hour)
			}
		}
		role, app := x.app(clientID)
		good := app != nil && slices.Contains(fuzzRedirects[role], redirect)
		requested := requestedScopes(req.Scopes)

		started, err := x.p.start(ctx, x.pid, req, who)
		if err != nil {
			pageError(t, "start", err)
		} else {
			if !good {
				t.Fatalf("start accepted client %q with redirect_uri %q", clientID, redirect)
			}
			var listed []string
			for _, r := range started.ScopeResults {
				listed = append(listed, r.Scope)
				if r.Scope == ScopeFullAccess && r.IsGrantable && !app.MayHoldFullAccess() {
					t.Fatalf("start offers full_access to %s", role)
				}
			}
			if !slices.Equal(listed, requested) {
				t.Fatalf("start lists scopes %q for the request's %q", listed, requested)
			}
		}

		res, err := x.p.submit(ctx, x.pid, req, who)
		if err != nil {
			pageError(t, "submit", err)
			if good {
				t.Fatalf("submit refused a request for %s at its registered %q on the page, not at the redirect: %v", role, redirect, err)
			}
			return
		}
		if !good {
			t.Fatalf("submit redirected (%q) for client %q with redirect_uri %q", res.RedirectURI, clientID, redirect)
		}
		q := redirectedTo(t, res.RedirectURI, redirect)
		if q.Get("iss") != x.p.Issuer(x.pid) || q.Has("state") != (state != "") || q.Get("state") != state {
			t.Fatalf("submit's redirect %q does not carry state %q and iss", res.RedirectURI, state)
		}
		if q.Has("error") {
			if q.Get("error") == "" || q.Has("code") || res.AuthorizationCode != "" {
				t.Fatalf("submit's error redirect %q", res.RedirectURI)
			}
			return
		}
		code, ours := q.Get("code"), 2 // code and iss, and state when given
		if state != "" {
			ours++
		}
		if code == "" || code != res.AuthorizationCode || len(q) != ours {
			t.Fatalf("submit's redirect %q is neither an error nor a code", res.RedirectURI)
		}
		if who == nil {
			t.Fatalf("a code (%q) without a session", res.RedirectURI)
		}
		if responseType != "" && responseType != "code" {
			t.Fatalf("a code for response_type %q", responseType)
		}
		if method != "" && method != "S256" || chal != "" && !validChallenge(chal) || app.Public() && chal == "" {
			t.Fatalf("a code for %s with code_challenge %q, method %q", role, chal, method)
		}
		var data codeData
		storedChallenge := storedCode(t, x, code, &data)
		if storedChallenge != chal || data.PKCE != (chal != "") || data.RedirectURI != redirect || data.Nonce != nonce ||
			data.ClientID != clientID || data.MemberID != x.member.MemberID {
			t.Fatalf("the code for %q (challenge %q, nonce %q) holds %+v with challenge %q", redirect, chal, nonce, data, storedChallenge)
		}
		if len(data.Scopes) == 0 {
			t.Fatalf("a code without scopes, for %q", requested)
		}
		for _, s := range data.Scopes {
			if !slices.Contains(requested, s) || !slices.Contains(BuiltinScopes, s) || s == ScopeFullAccess && !app.MayHoldFullAccess() {
				t.Fatalf("the code for %s holds %q of %q, requested %q", role, s, data.Scopes, requested)
			}
		}
		if slices.Contains(data.Scopes, ScopeOpenID) != slices.Contains(requested, ScopeOpenID) {
			t.Fatalf("the code holds %q for a request of %q: openid, and with it the ID token, differs", data.Scopes, requested)
		}
	})
}

// requestedScopes reads the request's scopes as RFC 6749 3.3 does (each
// value space-separated, repeats once), with OIDC's default when the
// request names no scope parameter at all.
func requestedScopes(list []string) []string {
	if len(list) == 0 {
		return []string{ScopeOpenID, ScopeEmail, ScopeProfile}
	}
	var out []string
	for _, s := range strings.Fields(strings.Join(list, " ")) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// validChallenge is RFC 7636 4.2's S256 challenge: BASE64URL of 32 bytes,
// 43 characters without padding.
func validChallenge(s string) bool {
	if len(s) != 43 {
		return false
	}
	return strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == ""
}

// pageError fails t unless err is what the widget can show on its page: a
// catalogue error below 500.
func pageError(t *testing.T, step string, err error) {
	t.Helper()
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Status < 400 || ae.Status > 499 {
		t.Fatalf("%s refused with an error outside the catalogue, or a 5xx: %v", step, err)
	}
}

// redirectedTo checks that u is registered with only our parameters added
// to its query, and returns them.
func redirectedTo(t *testing.T, u, registered string) url.Values {
	t.Helper()
	sep := "?"
	if strings.Contains(registered, "?") {
		sep = "&"
	}
	rest, ok := strings.CutPrefix(u, registered+sep)
	q, err := url.ParseQuery(rest)
	if !ok || err != nil {
		t.Fatalf("redirect %q is not the registered %q with parameters added", u, registered)
	}
	return q
}

// storedCode reads the code's stored ticket (its data and challenge)
// without redeeming it.
func storedCode(t *testing.T, x *fuzzFixture, code string, data *codeData) (challenge string) {
	t.Helper()
	var raw string
	if err := x.p.db.Read().QueryRowContext(context.Background(), `SELECT pkce_code_challenge, data FROM flow_tickets
		WHERE ticket_hash = $1 AND kind = $2`, ids.Hash(code), string(codeKind)).Scan(&challenge, &raw); err != nil {
		t.Fatalf("the code %q is not stored: %v", code, err)
	}
	if err := json.Unmarshal([]byte(raw), data); err != nil {
		t.Fatalf("the code's data %q: %v", raw, err)
	}
	return challenge
}
