package cli

import (
	"context"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// configChanged returns the work that files a config_changed event for a
// CLI change of project projectID's configuration: method names the
// command ("add-origin", "rbac set"...), details what changed, never a
// secret value. Each command runs it inside its change's transaction
// (the stores' Also hooks), so a change that cannot be recorded is rolled
// back rather than committed unrecorded, as for key and secret rotation.
func configChanged(ctx context.Context, log *audit.Log, projectID, method string, details map[string]any) func(q store.Querier) error {
	return func(q store.Querier) error {
		return log.RecordIn(ctx, q, audit.Event{ProjectID: projectID, Type: audit.ConfigChanged, Method: method,
			Actor: "cli", Details: details})
	}
}

// projectAlso is configChanged as a project.Also (which is also handed the
// project's id, already known here).
func projectAlso(record func(q store.Querier) error) project.Also {
	return func(q store.Querier, _ string) error { return record(q) }
}
