package project_test

import (
	"errors"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Signing keys are parsed once per kid: a second load reuses the parsed
// key (and its prepared fast signer), and a rotation's new key is loaded
// beside it.
func TestSigningKeysParsedOnce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, id := t.Context(), e.Project.Project.ID
		first, err := e.App.Projects.SigningKeys(ctx, id)
		if err != nil || len(first) != 1 {
			t.Fatalf("keys %v, %v", first, err)
		}
		again, err := e.App.Projects.SigningKeys(ctx, id)
		if err != nil || again[0].Private != first[0].Private || again[0].Signer != first[0].Signer {
			t.Fatalf("the second load parsed the key again (%v)", err)
		}
		rotatedKey, err := e.App.Projects.RotateSigningKey(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		rotated, err := e.App.Projects.SigningKeys(ctx, id)
		if err != nil || len(rotated) != 2 {
			t.Fatalf("after rotation: %v, %v", rotated, err)
		}
		byKID := map[string]project.SigningKey{rotated[0].KID: rotated[0], rotated[1].KID: rotated[1]}
		if byKID[first[0].KID].Private != first[0].Private {
			t.Fatal("the old key was parsed again after the rotation")
		}
		if k := byKID[rotatedKey.KID]; k.Private == nil || k.Private.Equal(first[0].Private) {
			t.Fatalf("the new key %s is missing or is the old one", rotatedKey.KID)
		}
	})
}

// A rotated key is published at once and signs only SigningKeyLead later:
// until then the previous key keeps signing, so no replica or JWKS-caching
// backend is shown a JWT whose key it cannot know yet. A new project's
// first key signs at once.
func TestRotatedKeySignsAfterItsLead(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, id := t.Context(), e.Project.Project.ID
		first, err := e.App.Projects.ListSigningKeys(ctx, id)
		if err != nil || len(first) != 1 || !first[0].Signing || first[0].ActivatesAt != first[0].CreatedAt {
			t.Fatalf("a new project's keys: %+v, %v", first, err)
		}
		old := first[0].KID
		now := e.Clock.Now()
		rotated, err := e.App.Projects.RotateSigningKey(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if want := store.Millis(now.Add(project.SigningKeyLead)); rotated.ActivatesAt != want || rotated.CreatedAt != store.Millis(now) {
			t.Fatalf("rotated key %+v, want activation at %d", rotated, want)
		}
		keys, err := e.App.Projects.SigningKeys(ctx, id)
		if err != nil || len(keys) != 2 {
			t.Fatalf("published keys after the rotation: %v, %v", keys, err)
		}
		activation := store.Time(rotated.ActivatesAt)
		for _, c := range []struct {
			at   time.Time
			want string
		}{{now, old}, {activation.Add(-time.Millisecond), old}, {activation, rotated.KID}, {activation.Add(time.Hour), rotated.KID}} {
			if got := project.Signer(keys, c.at).KID; got != c.want {
				t.Errorf("signer at %v is %s, want %s", c.at, got, c.want)
			}
		}
		signing := func() string {
			t.Helper()
			list, err := e.App.Projects.ListSigningKeys(ctx, id)
			if err != nil || len(list) != 2 {
				t.Fatalf("keys: %+v, %v", list, err)
			}
			var kids []string
			for _, k := range list {
				if k.Signing {
					kids = append(kids, k.KID)
				}
			}
			if len(kids) != 1 {
				t.Fatalf("%d keys listed as signing: %+v", len(kids), list)
			}
			return kids[0]
		}
		if got := signing(); got != old {
			t.Fatalf("keys list names %s as signing before the activation, want the old key %s", got, old)
		}
		e.Clock.Advance(project.SigningKeyLead)
		if got := signing(); got != rotated.KID {
			t.Fatalf("keys list names %s as signing after the activation, want %s", got, rotated.KID)
		}
	})
}

// Retiring the key that signs while the rotated one is still pending (a
// leaked key: rotate, then retire it at once) activates the pending keys
// now, the newest signing: the leaked key does not sign for another
// minute, and the project is never left without a key to sign with.
// Retiring a pending key leaves the signing key as it was, and the last
// key still cannot be retired.
func TestRetiringTheSigningKeyActivatesThePendingOnes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, id := t.Context(), e.Project.Project.ID
		first, err := e.App.Projects.ListSigningKeys(ctx, id)
		if err != nil || len(first) != 1 {
			t.Fatalf("keys: %+v, %v", first, err)
		}
		e.Clock.Advance(time.Second)
		pendingOlder, err := e.App.Projects.RotateSigningKey(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Second)
		pending, err := e.App.Projects.RotateSigningKey(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Second)
		signer := func() project.SigningKey {
			t.Helper()
			keys, err := e.App.Projects.SigningKeys(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return project.Signer(keys, e.Clock.Now())
		}
		if got := signer().KID; got != first[0].KID {
			t.Fatalf("before any retirement %s signs, want %s", got, first[0].KID)
		}
		if err := e.App.Projects.RetireSigningKey(ctx, id, first[0].KID); err != nil {
			t.Fatal(err)
		}
		if got := signer(); got.KID != pending.KID || !got.ActivatesAt.Equal(e.Clock.Now()) {
			t.Fatalf("after retiring the signing key %s signs from %v, want %s now", got.KID, got.ActivatesAt, pending.KID)
		}
		list, err := e.App.Projects.ListSigningKeys(ctx, id)
		if err != nil || len(list) != 2 || list[0].KID != pending.KID || !list[0].Signing ||
			list[0].ActivatesAt != store.Millis(e.Clock.Now()) || list[1].Signing {
			t.Fatalf("keys after the retirement: %+v, %v", list, err)
		}
		// The older of the two, activated with it, is not signing and can
		// go; then a new rotation's pending key can go too.
		if err := e.App.Projects.RetireSigningKey(ctx, id, pendingOlder.KID); err != nil {
			t.Fatal(err)
		}
		again, err := e.App.Projects.RotateSigningKey(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.App.Projects.RetireSigningKey(ctx, id, again.KID); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(project.SigningKeyLead)
		if got := signer().KID; got != pending.KID {
			t.Fatalf("after retiring a pending key %s signs, want %s", got, pending.KID)
		}
		if err := e.App.Projects.RetireSigningKey(ctx, id, pending.KID); !errors.Is(err, project.ErrLastSigningKey) {
			t.Fatalf("retiring the last key: %v", err)
		}
	})
}

// Signer's rule: the newest key already active; a zero activation (keys
// from before activations were kept) is always active; with none active
// yet (a clock behind the one that set the activations), the one that
// activates first.
func TestSigner(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	key := func(kid string, at time.Time) project.SigningKey {
		return project.SigningKey{KID: kid, ActivatesAt: at}
	}
	for _, c := range []struct {
		name string
		keys []project.SigningKey
		want string
	}{
		{"one legacy key", []project.SigningKey{key("a", time.Time{})}, "a"},
		{"pending before a legacy key", []project.SigningKey{key("new", now.Add(time.Second)), key("old", time.Time{})}, "old"},
		{"newest active", []project.SigningKey{key("c", now), key("b", now.Add(-time.Hour)), key("a", time.Time{})}, "c"},
		{"none active yet", []project.SigningKey{key("late", now.Add(2*time.Second)), key("soon", now.Add(time.Second)),
			key("later", now.Add(3*time.Second))}, "soon"},
		{"none active yet, a tie", []project.SigningKey{key("newer", now.Add(time.Second)), key("older", now.Add(time.Second))}, "newer"},
	} {
		if got := project.Signer(c.keys, now).KID; got != c.want {
			t.Errorf("%s: %s signs, want %s", c.name, got, c.want)
		}
	}
}
