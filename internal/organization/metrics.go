package organization

import (
	"context"
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
)

// MetricsResponse answers GET /v1/b2b/organizations/{organization_id}/metrics
// (the Node client's B2BOrganizationsMetricsResponse).
type MetricsResponse struct {
	httpapi.Common
	MemberCount int `json:"member_count"`
}

// Metrics handles GET /v1/b2b/organizations/{organization_id}/metrics
// (organizations.metrics; the project secret only, as the Node client
// sends no member session with it).
func (h Handlers) Metrics(r *http.Request) (any, error) {
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	o, err := h.Store.Get(ctx, p.ID, r.PathValue("organization_id"))
	if err != nil {
		return nil, NotFound(err, apierr.OrganizationNotFound)
	}
	n, err := h.Store.MemberCount(ctx, o)
	if err != nil {
		return nil, err
	}
	return &MetricsResponse{MemberCount: n}, nil
}

// MemberCount counts the members of o that are not deleted (a deleted
// member is out of the organization until reactivated): one count over
// the organization's slice of its members index.
func (s *Store) MemberCount(ctx context.Context, o *Organization) (int, error) {
	var n int
	err := s.db.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM members WHERE organization_id = $1 AND status <> $2`,
		o.OrganizationID, StatusDeleted).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("organization: count members: %w", err)
	}
	return n, nil
}

// ProjectCounts reports the project's organizations and its members that
// are not deleted, as MemberCount counts them per organization
// (project.Counter, for project.metrics).
func (s *Store) ProjectCounts(ctx context.Context, projectID string) ([]project.Metric, error) {
	var orgs, members int
	err := s.db.Read().QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM organizations WHERE project_id = $1),
		(SELECT COUNT(*) FROM members WHERE project_id = $1 AND status <> $2)`, projectID, StatusDeleted).Scan(&orgs, &members)
	if err != nil {
		return nil, fmt.Errorf("organization: project counts: %w", err)
	}
	return []project.Metric{{MetricType: "ORGANIZATION_COUNT", Count: orgs}, {MetricType: "MEMBER_COUNT", Count: members}}, nil
}
