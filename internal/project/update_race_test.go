package project_test

import (
	"fmt"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

// Update writes every setting back from its read of the project. Two
// updates of different settings at once (two CLI runs) each read the
// project before the other wrote, and on PostgreSQL the later write put
// the other's setting back. The read is now locked and inside the write's
// transaction: both settings are kept.
func TestConcurrentUpdatesKeepBothSettings(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx, s, id := t.Context(), e.App.Projects, e.Project.Project.ID
		for round := range 8 {
			name, minutes := fmt.Sprint("Shop ", round), 60+round
			updates := []project.Update{{Name: &name}, {SessionDurationMinutes: &minutes}}
			errs := apptest.Together(len(updates), func(i int) error {
				_, err := s.Update(ctx, id, updates[i])
				return err
			})
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("updates: %v, %v", errs[0], errs[1])
			}
			p, err := s.ByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != name || p.SessionDurationMinutes != minutes {
				t.Fatalf("round %d: name %q, session minutes %d; want %q, %d", round, p.Name, p.SessionDurationMinutes, name, minutes)
			}
		}
	})
}
