package rbac

import (
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/organization"
)

// RolesInUseError refuses a policy change that removes roles still
// assigned: Refs lists every assignment (member roles, email assignments,
// SAML connection and group assignments).
type RolesInUseError struct {
	Refs []organization.RoleRef
}

// maxListed bounds the assignments an error message lists.
const maxListed = 20

func (e *RolesInUseError) Error() string {
	var b strings.Builder
	b.WriteString("rbac: the new policy removes roles that are still assigned; nothing was changed:")
	for i, r := range e.Refs {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Refs)-maxListed)
			break
		}
		b.WriteString("\n  " + r.String())
	}
	return b.String()
}

// summary is the refusal in one sentence, for an API error message.
func (e *RolesInUseError) summary() string {
	parts := make([]string, 0, min(len(e.Refs), maxListed))
	for i, r := range e.Refs {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Refs)-maxListed))
			break
		}
		parts = append(parts, fmt.Sprintf("%q by %s", r.RoleID, r.Where))
	}
	return "Roles removed by this change are still assigned: " + strings.Join(parts, ", ") + "."
}
