package organization

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/store"
)

// RoleRef is one place that names a role: a member's explicit roles, an
// organization's email assignment, a SAML connection's assignment.
type RoleRef struct {
	OrganizationID string
	RoleID         string
	// Where says what names the role, for a person: "member member-...",
	// "rbac_email_implicit_role_assignments (example.com)".
	Where string
}

func (r RoleRef) String() string {
	return fmt.Sprintf("%s: %s in organization %s", r.RoleID, r.Where, r.OrganizationID)
}

// RoleReferrer finds (and on request removes) the role assignments a
// module stores, so that a change of the project policy or of an
// organization's custom roles never leaves a role assigned that no longer
// exists: such a name would grant nothing today, and everything again if a
// role of that id were defined later.
type RoleReferrer interface {
	// RoleRefs lists, in the project's organizations (orgID's alone when
	// not empty), the assignments of roles that gone reports. With drop it
	// also removes them inside q, locking each row before rereading and
	// rewriting it. The caller holds the policy lock (RBAC.LockPolicy), so
	// no new assignment of a gone role can commit meanwhile.
	RoleRefs(ctx context.Context, q store.Querier, projectID, orgID string, gone func(orgID, roleID string) bool, drop bool) ([]RoleRef, error)
}

// RoleReferrerFunc adapts a function to RoleReferrer.
type RoleReferrerFunc func(ctx context.Context, q store.Querier, projectID, orgID string, gone func(orgID, roleID string) bool, drop bool) ([]RoleRef, error)

// RoleRefs calls f.
func (f RoleReferrerFunc) RoleRefs(ctx context.Context, q store.Querier, projectID, orgID string, gone func(orgID, roleID string) bool, drop bool) ([]RoleRef, error) {
	return f(ctx, q, projectID, orgID, gone, drop)
}

// EmailAssignmentRefs are the organizations' rbac_email_implicit_role_assignments.
func (s *Store) EmailAssignmentRefs() RoleReferrer { return RoleReferrerFunc(s.emailAssignmentRefs) }

// MemberRoleRefs are the members' explicitly assigned roles, deleted
// members' included (a reactivation gives them back).
func (s *Store) MemberRoleRefs() RoleReferrer { return RoleReferrerFunc(s.memberRoleRefs) }

func (s *Store) emailAssignmentRefs(ctx context.Context, q store.Querier, projectID, orgID string,
	gone func(orgID, roleID string) bool, drop bool) ([]RoleRef, error) {
	rows, err := textRows(ctx, q, `SELECT organization_id, rbac_email_implicit_role_assignments FROM organizations
		WHERE project_id = $1 AND ($2 = '' OR organization_id = $2) AND rbac_email_implicit_role_assignments <> '[]'
		ORDER BY organization_id`, projectID, orgID)
	if err != nil {
		return nil, err
	}
	var out []RoleRef
	for _, r := range rows {
		id := r[0]
		var as []RoleAssignment
		if err := json.Unmarshal([]byte(r[1]), &as); err != nil {
			return nil, fmt.Errorf("organization: decode email assignments: %w", err)
		}
		isGone := func(a RoleAssignment) bool { return gone(id, a.RoleID) }
		if !slices.ContainsFunc(as, isGone) {
			continue
		}
		for _, a := range as {
			if isGone(a) {
				out = append(out, RoleRef{OrganizationID: id, RoleID: a.RoleID,
					Where: "rbac_email_implicit_role_assignments (" + a.Domain + ")"})
			}
		}
		if !drop {
			continue
		}
		// Locked and reread: a change of the assignments may have
		// committed since the scan (UpdateIn writes every setting back).
		if err := s.db.LockRow(ctx, q, "organizations", "organization_id", id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		o, err := s.GetIn(ctx, q, projectID, id)
		if err != nil {
			return nil, err
		}
		kept := slices.DeleteFunc(o.RBACEmailImplicitRoleAssignments, isGone)
		if _, err := q.ExecContext(ctx, `UPDATE organizations SET rbac_email_implicit_role_assignments = $1, updated_at = $2
			WHERE organization_id = $3`, mustJSON(kept), store.Millis(s.clock.Now()), id); err != nil {
			return nil, fmt.Errorf("organization: drop email assignments: %w", err)
		}
	}
	return out, nil
}

func (s *Store) memberRoleRefs(ctx context.Context, q store.Querier, projectID, orgID string,
	gone func(orgID, roleID string) bool, drop bool) ([]RoleRef, error) {
	rows, err := textRows(ctx, q, `SELECT member_id, organization_id, roles FROM members
		WHERE project_id = $1 AND ($2 = '' OR organization_id = $2) AND roles <> '[]'
		ORDER BY organization_id, member_id`, projectID, orgID)
	if err != nil {
		return nil, err
	}
	var out []RoleRef
	for _, r := range rows {
		memberID, org := r[0], r[1]
		var roles []string
		if err := json.Unmarshal([]byte(r[2]), &roles); err != nil {
			return nil, fmt.Errorf("organization: decode member roles: %w", err)
		}
		isGone := func(id string) bool { return gone(org, id) }
		if !slices.ContainsFunc(roles, isGone) {
			continue
		}
		for _, id := range roles {
			if isGone(id) {
				out = append(out, RoleRef{OrganizationID: org, RoleID: id, Where: "member " + memberID})
			}
		}
		if !drop {
			continue
		}
		// Locked and reread, as above: a member update writes roles back.
		if err := s.lockMemberForUpdate(ctx, q, memberID); err != nil {
			return nil, err
		}
		var text string
		if err := q.QueryRowContext(ctx, `SELECT roles FROM members WHERE member_id = $1`, memberID).Scan(&text); err != nil {
			return nil, fmt.Errorf("organization: reread member roles: %w", store.MapError(err))
		}
		var now []string
		if err := json.Unmarshal([]byte(text), &now); err != nil {
			return nil, fmt.Errorf("organization: decode member roles: %w", err)
		}
		if _, err := q.ExecContext(ctx, `UPDATE members SET roles = $1, updated_at = $2 WHERE member_id = $3`,
			mustJSON(slices.DeleteFunc(now, isGone)), store.Millis(s.clock.Now()), memberID); err != nil {
			return nil, fmt.Errorf("organization: drop member roles: %w", err)
		}
	}
	return out, nil
}

// textRows reads every row of query, each column as text, before the
// caller writes anything (one connection cannot interleave the two).
func textRows(ctx context.Context, q store.Querier, query string, args ...any) ([][]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("organization: role references: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("organization: role references: %w", err)
	}
	var out [][]string
	for rows.Next() {
		row := make([]string, len(cols))
		dst := make([]any, len(cols))
		for i := range row {
			dst[i] = &row[i]
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("organization: role references: %w", err)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("organization: role references: %w", err)
	}
	return out, nil
}
