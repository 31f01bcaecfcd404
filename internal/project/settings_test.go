package project_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// A browser's Origin header never carries the scheme's default port, so an
// origin registered with one would never match.
func TestNormalizeOriginDropsDefaultPort(t *testing.T) {
	for in, want := range map[string]string{
		"https://admin.shop.example.com:443": "https://admin.shop.example.com",
		"http://Shop.Example.com:80/":        "http://shop.example.com",
		"https://shop.example.com:80":        "https://shop.example.com:80",
		"http://localhost:8443":              "http://localhost:8443",
		"https://[::1]:443":                  "https://[::1]",
		"https://shop.example.com:":          "https://shop.example.com",
	} {
		got, err := project.NormalizeOrigin(in)
		if err != nil || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestRedirectURLsListDefaultRemove(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, s, id := t.Context(), e.App.Projects, e.Project.Project.ID
		before, err := s.RedirectURLs(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		login := func() []project.RedirectURL {
			t.Helper()
			all, err := s.RedirectURLs(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			var out []project.RedirectURL
			for _, r := range all {
				if r.Type == project.RedirectLogin {
					out = append(out, r)
				}
			}
			return out
		}
		first := login()
		if len(first) != 1 || !first[0].Default {
			t.Fatalf("the test project's login URLs: %+v", first)
		}
		a, b := "https://shop.test/a", "https://shop.test/b"
		for _, u := range []string{a, b} {
			if err := s.AddRedirectURL(ctx, id, u, []project.RedirectType{project.RedirectLogin}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetDefaultRedirectURL(ctx, id, b, []project.RedirectType{project.RedirectLogin}); err != nil {
			t.Fatal(err)
		}
		want := []project.RedirectURL{{URL: first[0].URL, Type: project.RedirectLogin}, {URL: a, Type: project.RedirectLogin},
			{URL: b, Type: project.RedirectLogin, Default: true}}
		if diff := cmp.Diff(want, login()); diff != "" {
			t.Fatalf("after SetDefault (-want +got):\n%s", diff)
		}
		if got, err := s.ResolveRedirect(ctx, id, project.RedirectLogin, ""); err != nil || got != b {
			t.Fatalf("resolved default %q, %v; want %q", got, err, b)
		}
		// Removing the default makes the oldest remaining URL the default.
		if err := s.RemoveRedirectURL(ctx, id, b, []project.RedirectType{project.RedirectLogin}); err != nil {
			t.Fatal(err)
		}
		want = []project.RedirectURL{{URL: first[0].URL, Type: project.RedirectLogin, Default: true}, {URL: a, Type: project.RedirectLogin}}
		if diff := cmp.Diff(want, login()); diff != "" {
			t.Fatalf("after removing the default (-want +got):\n%s", diff)
		}
		for name, err := range map[string]error{
			"unregistered type":       s.RemoveRedirectURL(ctx, id, a, []project.RedirectType{project.RedirectInvite}),
			"default of unregistered": s.SetDefaultRedirectURL(ctx, id, b, []project.RedirectType{project.RedirectLogin}),
			"unknown type":            s.RemoveRedirectURL(ctx, id, a, []project.RedirectType{"nope"}),
		} {
			if err == nil {
				t.Errorf("%s: no error", name)
			}
		}
		if err := s.RemoveRedirectURL(ctx, id, b, nil); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("removing an unregistered URL: %v, want not found", err)
		}
		after, _ := s.RedirectURLs(ctx, id)
		if len(after) != len(before)+1 {
			t.Fatalf("refused changes changed the list: %+v", after)
		}
	})
}

func TestOriginsListRemove(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, s, id := t.Context(), e.App.Projects, e.Project.Project.ID
		before, err := s.Origins(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddOrigin(ctx, id, "https://admin.shop.test:443"); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.OriginAllowed(ctx, id, "https://admin.shop.test"); err != nil || !ok {
			t.Fatalf("the origin as a browser sends it is not allowed (%v)", err)
		}
		if got, _ := s.Origins(ctx, id); len(got) != len(before)+1 {
			t.Fatalf("origins %v", got)
		}
		if err := s.RemoveOrigin(ctx, id, "https://ADMIN.shop.test"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.OriginAllowed(ctx, id, "https://admin.shop.test"); ok {
			t.Fatal("a removed origin is still allowed")
		}
		if err := s.RemoveOrigin(ctx, id, "https://admin.shop.test"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("removing twice: %v, want not found", err)
		}
		if got, _ := s.Origins(ctx, id); !cmp.Equal(got, before) {
			t.Fatalf("origins %v, want %v", got, before)
		}
	})
}
