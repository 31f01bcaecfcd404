package rbac

import "github.com/latchkey/latchkey/internal/changefeed"

// Watches are the module's tables whose changes must reach cached answers
// (see app.moduleWatches): a project's policy decides which roles exist,
// so a change drops everything cached for the project. Role assignment
// tables (member roles, an organization's custom roles) belong here too,
// with the Member or Organization scope.
func Watches() []changefeed.Watch {
	return []changefeed.Watch{
		{Table: "rbac_policies", KeyColumn: "project_id", Scope: changefeed.Project},
	}
}
