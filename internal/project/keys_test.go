package project_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
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
		kid, err := e.App.Projects.RotateSigningKey(ctx, id)
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
		if k := byKID[kid]; k.Private == nil || k.Private.Equal(first[0].Private) {
			t.Fatalf("the new key %s is missing or is the old one", kid)
		}
	})
}
