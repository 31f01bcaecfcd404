package providertokens_test

import (
	"slices"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/providertokens"
	"github.com/latchkey/latchkey/internal/secretbox"
)

func TestFromOAuth2PrefersGrantedScopes(t *testing.T) {
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	base := &oauth2.Token{AccessToken: "at", RefreshToken: "rt", Expiry: exp}
	for _, c := range []struct {
		extra     map[string]any
		requested []string
		want      []string
	}{
		{nil, []string{"openid", "email"}, []string{"openid", "email"}},
		{nil, nil, []string{}},
		{map[string]any{"scope": "openid profile"}, []string{"openid"}, []string{"openid", "profile"}},
		{map[string]any{"scope": "repo,read:org"}, nil, []string{"repo", "read:org"}},
		{map[string]any{"id_token": "idt", "scope": ""}, []string{"openid"}, []string{"openid"}},
	} {
		tok := base
		if c.extra != nil {
			tok = base.WithExtra(c.extra)
		}
		got := providertokens.FromOAuth2(tok, c.requested)
		if !slices.Equal(got.Scopes, c.want) || got.Scopes == nil {
			t.Errorf("%v: scopes %#v, want %#v", c.extra, got.Scopes, c.want)
		}
		if got.AccessToken != "at" || got.RefreshToken != "rt" || !got.ExpiresAt.Equal(exp) {
			t.Errorf("%v: %+v", c.extra, got)
		}
		if wantID := c.extra["id_token"]; wantID != nil && got.IDToken != wantID {
			t.Errorf("id token %q", got.IDToken)
		}
	}
}

func TestExpiresIn(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at   time.Time
		want int
	}{{time.Time{}, 0}, {now.Add(-time.Second), 0}, {now, 0}, {now.Add(90*time.Second + 500*time.Millisecond), 90}} {
		if got := (providertokens.Tokens{ExpiresAt: c.at}).ExpiresIn(now); got != c.want {
			t.Errorf("ExpiresIn(%v) = %d, want %d", c.at, got, c.want)
		}
	}
}

// Sealed tokens open only for the row they were sealed for.
func TestSealOpenBoundToRow(t *testing.T) {
	box, err := secretbox.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	col := atrest.Column{Table: "t", Key: "id", Column: "tokens"}
	in := providertokens.Tokens{AccessToken: "at", Scopes: []string{"openid"}, ExpiresAt: time.Unix(1900000000, 0).UTC()}
	sealed, err := providertokens.Seal(box, col, "row-1", in)
	if err != nil || !secretbox.IsSealed(sealed) {
		t.Fatalf("Seal: %q %v", sealed, err)
	}
	out, err := providertokens.Open(box, col, "row-1", sealed)
	if err != nil || out.AccessToken != "at" || !out.ExpiresAt.Equal(in.ExpiresAt) || !slices.Equal(out.Scopes, in.Scopes) {
		t.Fatalf("Open: %+v %v", out, err)
	}
	if _, err := providertokens.Open(box, col, "row-2", sealed); err == nil {
		t.Fatal("tokens opened for another row")
	}
	if out, err := providertokens.Open(nil, col, "row-1", ""); err != nil || out.AccessToken != "" {
		t.Fatalf("empty: %+v %v", out, err)
	}
}

// A later answer keeps the earlier refresh token only when it has none;
// everything else is the later answer's.
func TestKeepingRefresh(t *testing.T) {
	prev := providertokens.Tokens{AccessToken: "at-1", RefreshToken: "rt-1", Scopes: []string{"a"}}
	got := providertokens.Tokens{AccessToken: "at-2", Scopes: []string{"b"}}.KeepingRefresh(prev)
	if got.AccessToken != "at-2" || got.RefreshToken != "rt-1" || !slices.Equal(got.Scopes, []string{"b"}) {
		t.Fatalf("without a refresh token: %+v", got)
	}
	if got := (providertokens.Tokens{AccessToken: "at-3", RefreshToken: "rt-3"}).KeepingRefresh(prev); got.RefreshToken != "rt-3" {
		t.Fatalf("with a refresh token: %+v", got)
	}
}

// A later answer without an access token (Google One Tap's) keeps the
// earlier access token, its expiry and scopes, with its own ID token; one
// with an access token is taken whole, and nothing is kept from an
// earlier answer that had no access token either.
func TestKeepingAccess(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := providertokens.Tokens{AccessToken: "at-1", IDToken: "id-1", Scopes: []string{"openid", "calendar"}, ExpiresAt: exp}
	got := providertokens.Tokens{IDToken: "id-2", Scopes: []string{"openid"}}.KeepingAccess(prev)
	if got.AccessToken != "at-1" || !got.ExpiresAt.Equal(exp) || !slices.Equal(got.Scopes, prev.Scopes) || got.IDToken != "id-2" {
		t.Fatalf("without an access token: %+v", got)
	}
	later := providertokens.Tokens{AccessToken: "at-2", Scopes: []string{"openid"}}
	if got := later.KeepingAccess(prev); got.AccessToken != "at-2" || !got.ExpiresAt.IsZero() || !slices.Equal(got.Scopes, later.Scopes) {
		t.Fatalf("with an access token: %+v", got)
	}
	oneTap := providertokens.Tokens{IDToken: "id-3", Scopes: []string{"openid"}}
	if got := oneTap.KeepingAccess(providertokens.Tokens{IDToken: "id-1", Scopes: []string{"x"}}); !slices.Equal(got.Scopes, oneTap.Scopes) {
		t.Fatalf("after an answer without an access token: %+v", got)
	}
}
