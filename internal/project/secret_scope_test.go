package project_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// A project's secret authenticates that project only: another project's
// secret, presented with this project's id, is refused by the resolver
// (the backend face) and by the store alike. Secrets are looked up by the
// project id; looked up by hash alone, any project's secret would open
// every project.
func TestSecretOfAnotherProjectIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, a := t.Context(), e.Project
		b := e.NewProject("other")
		if _, err := e.App.Resolver.CheckSecret(ctx, b.Project.ID, b.Secret); err != nil {
			t.Fatalf("the other project's own secret: %v", err)
		}
		if p, err := e.App.Resolver.CheckSecret(ctx, a.Project.ID, b.Secret); err == nil || !project.IsNotFound(err) {
			t.Fatalf("another project's secret opened %s: %v, %v", a.Project.ID, p, err)
		}
		if p, err := e.App.Projects.CheckSecret(ctx, a.Project.ID, b.Secret); err == nil || !project.IsNotFound(err) {
			t.Fatalf("store: another project's secret opened %s: %v, %v", a.Project.ID, p, err)
		}
		r := e.Do("GET", "/v1/b2b/organizations/"+"organization-test-00000000-0000-0000-0000-000000000000", nil, nil,
			a.Project.ID, b.Secret)
		apptest.Want(t, r, 401, "invalid_secret_authentication")
	})
}

// RetireSecret retires the named project's secret only: another project's
// secret id is not one of its secrets, and that secret keeps working.
func TestRetireSecretOfAnotherProjectIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, a := t.Context(), e.Project
		b := e.NewProject("other")
		// Two secrets, so that the last-secret rule is not what refuses.
		if _, _, err := e.App.Projects.RotateSecret(ctx, a.Project.ID, true); err != nil {
			t.Fatal(err)
		}
		theirs, err := e.App.Projects.ListSecrets(ctx, b.Project.ID)
		if err != nil || len(theirs) != 1 {
			t.Fatalf("other project's secrets %v, %v", theirs, err)
		}
		if err := e.App.Projects.RetireSecret(ctx, a.Project.ID, theirs[0].SecretID); err == nil || !project.IsNotFound(err) {
			t.Fatalf("retiring another project's secret: %v", err)
		}
		if _, err := e.App.Projects.CheckSecret(ctx, b.Project.ID, b.Secret); err != nil {
			t.Fatalf("the other project's secret stopped working: %v", err)
		}
		if left, err := e.App.Projects.ListSecrets(ctx, a.Project.ID); err != nil || len(left) != 2 {
			t.Fatalf("this project's secrets %v, %v", left, err)
		}
	})
}

// Rotating a secret without keeping the old one ends the old one at once
// for the resolver too, whose memo had just accepted it.
func TestRotatedAwaySecretIsRefusedAtOnce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, a := t.Context(), e.Project
		if _, err := e.App.Resolver.CheckSecret(ctx, a.Project.ID, a.Secret); err != nil {
			t.Fatal(err)
		}
		_, fresh, err := e.App.Projects.RotateSecret(ctx, a.Project.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := e.App.Resolver.CheckSecret(ctx, a.Project.ID, a.Secret); err == nil || !project.IsNotFound(err) {
			t.Fatalf("the rotated-away secret still opened the project: %v, %v", p, err)
		}
		if _, err := e.App.Resolver.CheckSecret(ctx, a.Project.ID, fresh); err != nil {
			t.Fatalf("the new secret: %v", err)
		}
	})
}
