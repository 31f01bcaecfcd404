package clientsecret

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store"
)

// What happened to a client's secrets, as an audit event's method names
// it. A creation or a rotation's start issues a secret
// (audit.SecretRotated); a rotation's completion or cancellation, or the
// client's deletion, ends one (audit.SecretRetired).
const (
	Created           = "client_created"
	RotationStarted   = "rotation_started"
	RotationCompleted = "rotation_completed"
	RotationCancelled = "rotation_cancelled"
	Deleted           = "client_deleted"
)

// StepChange is the change a rotation step makes (StepStart...).
func StepChange(step string) string {
	switch step {
	case StepStart:
		return RotationStarted
	case StepComplete:
		return RotationCompleted
	default:
		return RotationCancelled
	}
}

// Change is a change of one client's secrets for the audit log.
type Change struct {
	ProjectID  string
	ClientType string // "m2m_client", "connected_app" or "scim_connection"
	ClientID   string
	Change     string // Created, RotationStarted ...
	// Who made the change, for a client whose secrets a member may
	// manage (a SCIM connection's bearer token, from the Admin Portal or a
	// backend acting with a member's session): Actor is the face ("sdk";
	// empty for "backend"), ActorMemberID the member whose session acted
	// (empty for the project secret), OrganizationID the client's
	// organization, if it has one.
	Actor          string
	ActorMemberID  string
	OrganizationID string
}

// Record files c through a inside q, the transaction that makes the
// change, so that the change and its event commit together or not at all.
// The request's address, user agent and id come from ctx. The event names
// the client, never a secret. Its actor is c.Actor, "backend" unless set:
// the routes that create, rotate and delete M2M clients and connected
// apps are the backend face's alone, acting with the project secret. A
// member acting is named in details.actor_member_id. A nil a records
// nothing (a store no composition root wired, as in package tests).
func Record(ctx context.Context, q store.Querier, a audit.InTx, c Change) error {
	if a == nil {
		return nil
	}
	typ := audit.SecretRetired
	if c.Change == Created || c.Change == RotationStarted {
		typ = audit.SecretRotated
	}
	ip, ua := httpapi.Client(ctx)
	actor := c.Actor
	if actor == "" {
		actor = "backend"
	}
	details := map[string]any{"client_type": c.ClientType, "client_id": c.ClientID}
	if c.ActorMemberID != "" {
		details["actor_member_id"] = c.ActorMemberID
	}
	err := a.RecordIn(ctx, q, audit.Event{ProjectID: c.ProjectID, Type: typ, Method: c.Change, Actor: actor,
		OrganizationID: c.OrganizationID, IP: ip, UserAgent: ua, RequestID: httpapi.RequestID(ctx), Details: details})
	if err != nil {
		return fmt.Errorf("clientsecret: %w", err)
	}
	return nil
}
