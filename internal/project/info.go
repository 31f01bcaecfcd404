package project

import (
	"context"
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// The project's own backend routes that the Node client shares with the
// consumer API family: debug.whoami (which project a secret belongs to)
// and project.metrics (how much the project holds).

// Metric is one count of project.metrics.
type Metric struct {
	MetricType string `json:"metric_type"`
	Count      int    `json:"count"`
}

// Counter contributes counts to project.metrics: each store counts what it
// owns (organizations and members, M2M clients), so this package needs to
// know none of them.
type Counter interface {
	ProjectCounts(ctx context.Context, projectID string) ([]Metric, error)
}

// InfoHandlers serves GET /v1/debug/whoami and GET /v1/projects/metrics.
type InfoHandlers struct {
	Counters []Counter
}

// Routes lists the two routes; both take the project secret only.
func (h InfoHandlers) Routes() []httpapi.Route {
	return []httpapi.Route{
		httpapi.BackendRoute("GET /v1/debug/whoami", h.Whoami),
		httpapi.BackendRoute("GET /v1/projects/metrics", h.Metrics),
	}
}

// WhoamiResponse answers debug.whoami (the Node client's DebugWhoamiResponse).
type WhoamiResponse struct {
	httpapi.Common
	ProjectID string `json:"project_id"`
	Name      string `json:"name"`
}

// Whoami names the project whose secret the caller used.
func (h InfoHandlers) Whoami(r *http.Request) (any, error) {
	p := CallerFrom(r.Context()).Project
	return &WhoamiResponse{ProjectID: p.ID, Name: p.Name}, nil
}

// MetricsResponse answers project.metrics (the Node client's
// ProjectMetricsResponse).
type MetricsResponse struct {
	httpapi.Common
	ProjectID string   `json:"project_id"`
	Metrics   []Metric `json:"metrics"`
}

// Metrics counts what the project holds, as each Counter reports it.
func (h InfoHandlers) Metrics(r *http.Request) (any, error) {
	ctx := r.Context()
	p := CallerFrom(ctx).Project
	out := []Metric{}
	for _, c := range h.Counters {
		m, err := c.ProjectCounts(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return &MetricsResponse{ProjectID: p.ID, Metrics: out}, nil
}
