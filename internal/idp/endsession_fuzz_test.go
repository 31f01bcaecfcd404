package idp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
)

// FuzzEndSession sends RP-initiated logouts (client_id,
// post_logout_redirect_uri, id_token_hint, state) from a browser anyone
// controls through both steps that read them: the end_session endpoint,
// which sends the browser to the operator's page with the client filled
// in from the hint and the logged-out page as the default redirect, and
// logout/start, which the widget there calls with what the page's address
// holds (so also directly with the fuzzer's values, as a crafted address
// would send them). Properties: end_session answers an error or sends the
// browser to the operator's page only, naming a client the hint (when
// given) was issued to, the request's state unchanged, and the request's
// post_logout_redirect_uri or the logged-out page; logout/start refuses
// with a catalogue 4xx (shown on the page: no redirect), or redirects to
// the provider's logged-out page or to a URI byte-equal to one registered
// for the client that client_id names, which the hint (when given) was
// issued to, with state unchanged (absent when there was none) and nothing
// else added.
func FuzzEndSession(f *testing.F) {
	x := newFuzzFixture(f)
	// which: the low two bits pick client_id (conf, pub, first, or the
	// raw one, 3: "" or another); the next two the hint (none, an ID token
	// issued to conf, one issued to conf and pub together, or the raw one);
	// 0x10 posts end_session's form instead of a GET. The fixture's ids
	// and keys differ from process to process (the fuzzer's workers, a
	// later run of the corpus), so the hints are made here, and the
	// logged-out page is spelled loggedOutSeed in an input.
	hints := []string{"", x.idToken(f, "sid-1", x.conf.ClientID), x.idToken(f, "sid-1", x.conf.ClientID, x.pub.ClientID)}
	loggedOut := x.p.loggedOutURL(x.pid)
	for _, s := range []struct {
		which                           uint8
		clientID, redirect, hint, state string
	}{
		{0x00, "", "https://rp.test/bye", "", "st-1"},
		{0x04, "", "https://rp.test/bye?next=%2F", "", "st 1&x=#y"},
		{0x07, "", "", "", "st-1"},
		{0x17, "", "https://rp.test/bye", "", ""},
		{0x05, "", "https://rp.test/bye", "", "st-1"},
		{0x08, "", "https://rp.test/bye", "", "st-1"},
		{0x09, "", "http://localhost:4000/bye", "", "st-1"},
		{0x01, "", "https://rp.test/bye", "", "st-1"},
		{0x00, "", "https://rp.test/bye/", "", "s"},
		{0x00, "", "https://rp.test/BYE", "", "s"},
		{0x02, "", loggedOutSeed, "", "s"},
		{0x02, "", loggedOutSeed + "?x=1", "", "s"},
		{0x03, "connected-app-test-unknown", "https://rp.test/bye", "", "s"},
		{0x0f, "", "https://rp.test/bye", "eyJhbGciOiJub25lIn0.eyJhdWQiOiJ4In0.", "s"},
		{0x1c, "", "", "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln", "s"},
	} {
		f.Add(s.which, s.clientID, s.redirect, s.hint, s.state)
	}
	ctx := project.WithCaller(context.Background(), project.Caller{Project: &project.Project{ID: x.pid}})
	faces := Faces{P: x.p}
	f.Fuzz(func(t *testing.T, which uint8, clientID, redirect, rawHint, state string) {
		for _, s := range []string{clientID, redirect, rawHint, state} {
			if !httpapi.Clean(s) {
				return // the edge refuses NUL and invalid UTF-8 (httpapi.WithCleanInput)
			}
		}
		switch which & 3 {
		case 0:
			clientID = x.conf.ClientID
		case 1:
			clientID = x.pub.ClientID
		case 2:
			clientID = x.first.ClientID
		}
		redirect = strings.ReplaceAll(redirect, loggedOutSeed, loggedOut)
		hint := rawHint
		if h := int(which>>2) & 3; h < len(hints) {
			hint = hints[h]
		}
		in := logoutRequest{ClientID: clientID, PostLogoutRedirectURI: redirect, IDTokenHint: hint, State: state}
		checkLogoutStart(t, x, faces, ctx, in)

		// end_session, then logout/start with what it put in the page's address.
		form := url.Values{}
		for k, v := range map[string]string{"client_id": clientID, "post_logout_redirect_uri": redirect, "id_token_hint": hint, "state": state} {
			if v != "" {
				form.Set(k, v)
			}
		}
		r := httptest.NewRequest(http.MethodGet, "/oauth2/end_session?"+form.Encode(), nil)
		if which&0x10 != 0 {
			r = httptest.NewRequest(http.MethodPost, "/oauth2/end_session", strings.NewReader(form.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		r.SetPathValue("project_id", x.pid)
		target, _, err := x.p.endSession(r)
		if err != nil {
			return // answered on end_session's own error page (writeOAuth), no redirect
		}
		rest, ok := strings.CutPrefix(target, fuzzAuthorizationPage+"?")
		page, perr := url.ParseQuery(rest)
		if !ok || perr != nil {
			t.Fatalf("end_session sent the browser to %q, not the operator's page", target)
		}
		wantRedirect := redirect
		if wantRedirect == "" {
			wantRedirect = loggedOut
		}
		named := page.Get("client_id")
		if page.Get("state") != state || page.Get("post_logout_redirect_uri") != wantRedirect || page.Get("id_token_hint") != hint ||
			clientID != "" && named != clientID || hint != "" && !slices.Contains(audienceOf(t, hint), named) {
			t.Fatalf("end_session(client_id %q, redirect %q, state %q, hint for %q) sent the page %v",
				clientID, redirect, state, audienceOf(t, hint), page)
		}
		checkLogoutStart(t, x, faces, ctx, logoutRequest{ClientID: named, PostLogoutRedirectURI: page.Get("post_logout_redirect_uri"),
			IDTokenHint: page.Get("id_token_hint"), State: page.Get("state")})
	})
}

// loggedOutSeed stands for the fixture's logged-out page in an input.
const loggedOutSeed = "{logged_out}"

// checkLogoutStart runs logout/start on in and checks FuzzEndSession's
// properties of its answer.
func checkLogoutStart(t *testing.T, x *fuzzFixture, faces Faces, ctx context.Context, in logoutRequest) {
	t.Helper()
	body, _ := json.Marshal(in)
	r := httptest.NewRequest(http.MethodPost, "/b2b/oauth/logout/start", strings.NewReader(string(body))).WithContext(ctx)
	r.Header.Set("Content-Type", "application/json")
	out, err := faces.SDKLogoutStart(r)
	if err != nil {
		pageError(t, "logout/start", err)
		return
	}
	u := out.(*LogoutResponse).RedirectURI
	role, app := x.app(in.ClientID)
	if app == nil {
		t.Fatalf("logout/start answered %q for client_id %q, which is no client", u, in.ClientID)
	}
	registered := in.PostLogoutRedirectURI
	if registered != x.p.loggedOutURL(x.pid) && !slices.Contains(fuzzLogoutRedirects[role], registered) {
		t.Fatalf("logout/start redirects to %q, registered for %s: %q", u, role, fuzzLogoutRedirects[role])
	}
	if in.IDTokenHint != "" && !slices.Contains(audienceOf(t, in.IDTokenHint), in.ClientID) {
		t.Fatalf("logout/start took an id_token_hint for %q as %s's", audienceOf(t, in.IDTokenHint), role)
	}
	if in.State == "" {
		if u != registered {
			t.Fatalf("logout/start without state redirects to %q, not %q", u, registered)
		}
		return
	}
	if q := redirectedTo(t, u, registered); len(q) != 1 || q.Get("state") != in.State {
		t.Fatalf("logout/start redirects to %q: want %q with state %q only", u, registered, in.State)
	}
}

// audienceOf reads a JWT's audience without verifying it (nil when it is
// not one): what a hint claims, for checking what was accepted.
func audienceOf(t *testing.T, token string) []string {
	t.Helper()
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return nil
	}
	var c jwt.Claims
	if parsed.UnsafeClaimsWithoutVerification(&c) != nil {
		return nil
	}
	return c.Audience
}
