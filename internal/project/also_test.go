package project

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// The origin and redirect URL changes run their caller's work (the CLI's
// audit event) in their own transaction: when it fails, nothing changes.
// A refusal for something not registered reads as a plain sentence (the
// CLI prints it after its own "latchkey project:"), and an origin not in
// the list is "not registered", not "not authorized", which read as a
// refusal of the operator.
func TestOriginAndRedirectChangesRunAlso(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := NewStore(db, clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)), secretbox.NewRandom())
		s.UseKeySource(testkeys.Source)
		boom := errors.New("audit unavailable")
		fail := func(store.Querier, string) error { return boom }
		var seen []string
		note := func(_ store.Querier, id string) error { seen = append(seen, id); return nil }
		p, err := s.Create(ctx, CreateParams{Name: "Also", RedirectURLs: []string{"https://shop.test/a"},
			Origins: []string{"https://shop.test"}}, note)
		if err != nil {
			t.Fatal(err)
		}
		id := p.Project.ID
		if _, err := s.Create(ctx, CreateParams{Name: "Unrecorded"}, fail); !errors.Is(err, boom) {
			t.Fatalf("create with a failing also: %v", err)
		}
		if list, _ := s.List(ctx); len(list) != 1 {
			t.Fatalf("%d projects after a failed create", len(list))
		}
		for name, change := range map[string]func(...Also) error{
			"add-origin":      func(a ...Also) error { return s.AddOrigin(ctx, id, "https://other.test", a...) },
			"remove-origin":   func(a ...Also) error { return s.RemoveOrigin(ctx, id, "https://shop.test", a...) },
			"add-redirect":    func(a ...Also) error { return s.AddRedirectURL(ctx, id, "https://shop.test/b", nil, a...) },
			"add-as-default":  func(a ...Also) error { return s.AddRedirectURLAsDefault(ctx, id, "https://shop.test/c", nil, a...) },
			"remove-redirect": func(a ...Also) error { return s.RemoveRedirectURL(ctx, id, "https://shop.test/a", nil, a...) },
		} {
			if err := change(fail); !errors.Is(err, boom) {
				t.Errorf("%s with a failing also: %v", name, err)
			}
		}
		origins, _ := s.Origins(ctx, id)
		urls, _ := s.RedirectURLs(ctx, id)
		if len(origins) != 1 || origins[0] != "https://shop.test" || len(urls) != len(RedirectTypes) {
			t.Fatalf("after failed changes: origins %v, redirect URLs %+v", origins, urls)
		}
		if err := s.AddOrigin(ctx, id, "https://other.test", note); err != nil {
			t.Fatal(err)
		}
		if len(seen) != 2 || seen[0] != id || seen[1] != id {
			t.Fatalf("also saw %v, want the project id twice", seen)
		}
		for _, c := range []struct {
			err  error
			want string
		}{
			{s.RemoveOrigin(ctx, id, "https://nope.test"), "origin https://nope.test is not registered"},
			{s.RemoveRedirectURL(ctx, id, "https://nope.test/x", nil), "redirect URL https://nope.test/x is not registered"},
			{s.RetireSecret(ctx, id, "secret-test-nope"), "secret secret-test-nope is not one of the project's secrets"},
			{s.RetireSigningKey(ctx, id, "jwk-test-nope"), "key jwk-test-nope is not one of the project's signing keys"},
		} {
			if c.err == nil || c.err.Error() != c.want || !IsNotFound(c.err) {
				t.Errorf("error %v, want %q (not found)", c.err, c.want)
			}
		}
	})
}
