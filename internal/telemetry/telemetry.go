// Package telemetry stores the widget's batched events (POST /sdk/v1/events).
// The SDK sends them without credentials, so each event names its project
// by public token and is accepted only from that project's origins.
package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// MaxBatch bounds one request; the widget flushes at 15.
const MaxBatch = 50

// Telemetry is written by anyone who knows a public token (it is in every
// customer page), so storage is bounded twice: events per client address
// per minute, and events per project per day; the sweeper deletes events
// past their retention. A batch over either bound is refused whole with
// too_many_requests and stores nothing.
var (
	PerIP      = ratelimit.Rule{Name: "events_ip", Limit: 1200, Window: time.Minute, PerClientAddress: true}
	PerProject = ratelimit.Rule{Name: "events_project", Limit: 50000, Window: 24 * time.Hour}
)

// Event is one telemetry item as the SDK sends it.
type Event struct {
	Telemetry json.RawMessage `json:"telemetry"`
	Event     struct {
		PublicToken string          `json:"public_token"`
		EventName   string          `json:"event_name"`
		Details     json.RawMessage `json:"details"`
	} `json:"event"`
}

// Handler stores event batches.
type Handler struct {
	DB       *store.DB
	Clock    clock.Clock
	Resolver *project.Resolver
	Origins  project.OriginPolicy
	Limiter  *ratelimit.Limiter
	// MaxPerIP and MaxPerProject override PerIP's and PerProject's limits
	// (LATCHKEY_EVENTS_MAX_PER_IP, LATCHKEY_EVENTS_MAX_PER_PROJECT).
	MaxPerIP, MaxPerProject int
}

func (h Handler) rule(r ratelimit.Rule, limit int) ratelimit.Rule {
	if limit > 0 {
		r.Limit = limit
	}
	return r
}

// Post handles POST /sdk/v1/events.
func (h Handler) Post(r *http.Request) (any, error) {
	var batch []Event
	if err := httpapi.Decode(r, &batch); err != nil {
		return nil, err
	}
	if len(batch) > MaxBatch {
		return nil, apierr.Invalid("events", fmt.Sprintf("At most %d events per request.", MaxBatch))
	}
	ctx := r.Context()
	if err := h.Limiter.AllowN(ctx, h.rule(PerIP, h.MaxPerIP), httpapi.ClientIP(r), len(batch)); err != nil {
		return nil, err
	}
	origin := r.Header.Get("Origin")
	rows := make([]row, 0, len(batch))
	perProject := map[string]int{}
	for _, e := range batch {
		rw, err := h.check(ctx, origin, e)
		if err != nil {
			return nil, err
		}
		rows = append(rows, rw)
		perProject[rw.project.ID]++
	}
	for id, n := range perProject {
		if err := h.Limiter.AllowN(ctx, h.rule(PerProject, h.MaxPerProject), id, n); err != nil {
			return nil, err
		}
	}
	now := store.Millis(h.Clock.Now())
	err := h.DB.Tx(ctx, func(q store.Querier) error {
		for _, rw := range rows {
			if _, err := q.ExecContext(ctx, `INSERT INTO events (event_id, project_id, event_name, details, created_at) VALUES ($1,$2,$3,$4,$5)`,
				ids.New("event", rw.project.Env), rw.project.ID, rw.name, rw.details, now); err != nil {
				return fmt.Errorf("telemetry: insert: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &httpapi.Common{}, nil
}

// row is a checked event ready to store.
type row struct {
	project       *project.Project
	name, details string
}

// check validates one event and resolves its project and origin.
func (h Handler) check(ctx context.Context, origin string, e Event) (row, error) {
	if e.Event.EventName == "" || len(e.Event.EventName) > 100 {
		return row{}, apierr.Invalid("event_name", "Each event needs an event_name of at most 100 characters.")
	}
	p, err := h.Resolver.ByPublicToken(ctx, e.Event.PublicToken)
	if err != nil {
		return row{}, apierr.Wrap(apierr.PublicTokenNotFound, err)
	}
	// The origin must be one the event's own project authorizes. Not
	// AllowOrigin on the request: that judges the request's credentials
	// (another project's, or none, which reads as "any project authorizes
	// it"), and a page on an origin of project B could then post into A
	// and spend A's daily events cap.
	if origin != "" {
		ok, err := h.Origins.AllowsFor(ctx, p.ID, origin)
		if err != nil {
			return row{}, fmt.Errorf("telemetry: origin: %w", err)
		}
		if !ok {
			return row{}, apierr.New(apierr.BadDomainForSDK)
		}
	}
	details := string(e.Event.Details)
	if details == "" || details == "null" {
		details = "{}"
	}
	if len(details) > 16<<10 {
		return row{}, apierr.Invalid("details", "Event details are limited to 16 KiB.")
	}
	return row{project: p, name: e.Event.EventName, details: details}, nil
}
