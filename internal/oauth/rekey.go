package oauth

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// ticketData is where a login waiting for authenticate keeps its
// provider tokens: in its token ticket's data (pendingLogin.SealedTokens),
// sealed for the project (tokensAAD).
var ticketData = atrest.Column{Table: "flow_tickets", Key: "ticket_hash", Column: "data"}

// RekeyTickets reseals under to, through the key rotation's transaction q,
// the provider tokens that token tickets carry, and returns how many it
// wrote. Spent and expired tickets are resealed too: until the sweeper
// removes them they still hold the tokens. Only the tokens field is
// rewritten; the rest of the ticket's data is kept as it is.
func RekeyTickets(ctx context.Context, q store.Querier, from, to *secretbox.Box) (int, error) {
	rows, err := q.QueryContext(ctx, `SELECT ticket_hash, project_id, data FROM flow_tickets WHERE kind IN ($1, $2)`,
		string(kindToken), string(kindDiscovery))
	if err != nil {
		return 0, fmt.Errorf("oauth: rekey tickets: %w", err)
	}
	type ticket struct{ hash, projectID, data string }
	var tickets []ticket
	for rows.Next() {
		var t ticket
		if err := rows.Scan(&t.hash, &t.projectID, &t.data); err != nil {
			rows.Close()
			return 0, fmt.Errorf("oauth: rekey tickets: %w", err)
		}
		tickets = append(tickets, t)
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("oauth: rekey tickets: %w", err)
	}
	n := 0
	for _, t := range tickets {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(t.data), &fields); err != nil {
			return n, fmt.Errorf("oauth: rekey ticket %s: %w", t.hash, err)
		}
		var sealed string
		if raw, ok := fields["tokens"]; ok {
			if err := json.Unmarshal(raw, &sealed); err != nil {
				return n, fmt.Errorf("oauth: rekey ticket %s: %w", t.hash, err)
			}
		}
		if sealed == "" {
			continue
		}
		next, err := atrest.Reseal(from, to, "flow_tickets.data", t.hash, sealed, tokensAAD(t.projectID))
		if err != nil {
			return n, err
		}
		if fields["tokens"], err = json.Marshal(next); err != nil {
			return n, fmt.Errorf("oauth: rekey ticket %s: %w", t.hash, err)
		}
		data, err := json.Marshal(fields)
		if err != nil {
			return n, fmt.Errorf("oauth: rekey ticket %s: %w", t.hash, err)
		}
		if err := atrest.Swap(ctx, q, ticketData, t.hash, t.data, string(data)); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
