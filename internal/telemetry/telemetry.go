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

// PerIP limits event writes per client address.
var PerIP = ratelimit.Rule{Name: "events_ip", Limit: 600, Window: time.Minute}

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
	if err := h.Limiter.Allow(ctx, PerIP, httpapi.ClientIP(r)); err != nil {
		return nil, err
	}
	origin := r.Header.Get("Origin")
	now := store.Millis(h.Clock.Now())
	err := h.DB.Tx(ctx, func(q store.Querier) error {
		for _, e := range batch {
			if err := h.store(ctx, q, r, origin, e, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &httpapi.Common{}, nil
}

func (h Handler) store(ctx context.Context, q store.Querier, r *http.Request, origin string, e Event, now int64) error {
	if e.Event.EventName == "" || len(e.Event.EventName) > 100 {
		return apierr.Invalid("event_name", "Each event needs an event_name of at most 100 characters.")
	}
	p, err := h.Resolver.ByPublicToken(ctx, e.Event.PublicToken)
	if err != nil {
		return apierr.Wrap(apierr.InvalidPublicToken, err)
	}
	if origin != "" {
		authed := r.Clone(ctx)
		authed.SetBasicAuth(e.Event.PublicToken, e.Event.PublicToken)
		if !h.Origins.AllowOrigin(authed, origin, false) {
			return apierr.New(apierr.OriginNotAllowed)
		}
	}
	details := string(e.Event.Details)
	if details == "" || details == "null" {
		details = "{}"
	}
	if len(details) > 16<<10 {
		return apierr.Invalid("details", "Event details are limited to 16 KiB.")
	}
	_, err = q.ExecContext(ctx, `INSERT INTO events (event_id, project_id, event_name, details, created_at) VALUES ($1,$2,$3,$4,$5)`,
		ids.New("event", p.Env), p.ID, e.Event.EventName, details, now)
	if err != nil {
		return fmt.Errorf("telemetry: insert: %w", err)
	}
	return nil
}
