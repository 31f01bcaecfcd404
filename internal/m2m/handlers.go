package m2m

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Wire is an M2M client on the wire (the Node client's M2MClient; the
// secrets appear only in the answer that made them).
type Wire struct {
	ClientID                 string         `json:"client_id"`
	ClientName               string         `json:"client_name"`
	ClientDescription        string         `json:"client_description"`
	Status                   string         `json:"status"`
	Scopes                   []string       `json:"scopes"`
	ClientSecretLastFour     string         `json:"client_secret_last_four"`
	TrustedMetadata          map[string]any `json:"trusted_metadata"`
	NextClientSecretLastFour string         `json:"next_client_secret_last_four,omitempty"`
	ClientSecret             string         `json:"client_secret,omitempty"`
	NextClientSecret         string         `json:"next_client_secret,omitempty"`
}

func (c *Client) wire() *Wire {
	return &Wire{ClientID: c.ClientID, ClientName: c.ClientName, ClientDescription: c.ClientDescription, Status: c.Status,
		Scopes: c.Scopes, ClientSecretLastFour: c.Secret.LastFour, TrustedMetadata: c.TrustedMetadata,
		NextClientSecretLastFour: c.Secret.NextLastFour}
}

// ClientResponse answers create, get, update and rotation.
type ClientResponse struct {
	httpapi.Common
	M2MClient *Wire `json:"m2m_client"`
}

// DeleteResponse answers a delete.
type DeleteResponse struct {
	httpapi.Common
	ClientID string `json:"client_id"`
}

// SearchResponse answers a search.
type SearchResponse struct {
	httpapi.Common
	M2MClients      []*Wire                       `json:"m2m_clients"`
	ResultsMetadata connectedapps.ResultsMetadata `json:"results_metadata"`
}

// Handlers serve /v1/m2m/clients... on the backend face.
type Handlers struct {
	Store *Store
}

func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return apierr.Wrap(apierr.M2MClientNotFound, err)
	}
	return err
}

func projectOf(r *http.Request) *project.Project { return project.CallerFrom(r.Context()).Project }

type createRequest struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	Fields
}

// Create handles POST /v1/m2m/clients.
func (h Handlers) Create(r *http.Request) (any, error) {
	var req createRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	p := projectOf(r)
	c, secret, err := h.Store.Create(r.Context(), p.ID, p.Env, req.ClientID, req.ClientSecret, req.Fields)
	if err != nil {
		return nil, err
	}
	w := c.wire()
	w.ClientSecret = secret
	return &ClientResponse{M2MClient: w}, nil
}

// Get handles GET /v1/m2m/clients/{client_id}.
func (h Handlers) Get(r *http.Request) (any, error) {
	c, err := h.Store.Get(r.Context(), projectOf(r).ID, r.PathValue("client_id"))
	if err != nil {
		return nil, notFound(err)
	}
	return &ClientResponse{M2MClient: c.wire()}, nil
}

// Update handles PUT /v1/m2m/clients/{client_id}.
func (h Handlers) Update(r *http.Request) (any, error) {
	var f Fields
	if err := httpapi.Decode(r, &f); err != nil {
		return nil, err
	}
	c, err := h.Store.Update(r.Context(), projectOf(r).ID, r.PathValue("client_id"), f)
	if err != nil {
		return nil, notFound(err)
	}
	return &ClientResponse{M2MClient: c.wire()}, nil
}

// Delete handles DELETE /v1/m2m/clients/{client_id}.
func (h Handlers) Delete(r *http.Request) (any, error) {
	id := r.PathValue("client_id")
	if err := h.Store.Delete(r.Context(), projectOf(r).ID, id); err != nil {
		return nil, notFound(err)
	}
	return &DeleteResponse{ClientID: id}, nil
}

// Rotate returns the handler of one rotation step.
func (h Handlers) Rotate(step string) httpapi.HandlerFunc {
	return func(r *http.Request) (any, error) {
		c, next, err := h.Store.Rotate(r.Context(), projectOf(r).ID, r.PathValue("client_id"), step)
		if err != nil {
			return nil, notFound(err)
		}
		w := c.wire()
		w.NextClientSecret = next
		return &ClientResponse{M2MClient: w}, nil
	}
}

type searchRequest struct {
	Cursor string `json:"cursor"`
	Limit  int    `json:"limit"`
	Query  *struct {
		Operator string    `json:"operator"`
		Operands []operand `json:"operands"`
	} `json:"query"`
}

// operand is one filter of a search, read raw so that each way it can be
// wrong has the API family's own type (m2m_search_*).
type operand struct {
	FilterName  json.RawMessage `json:"filter_name"`
	FilterValue json.RawMessage `json:"filter_value"`
}

// searchFields are the fields a search filters on (read-only).
var searchFields = map[string]func(*Client) []string{
	"client_id":   func(c *Client) []string { return []string{c.ClientID} },
	"client_name": func(c *Client) []string { return []string{c.ClientName} },
	"scopes":      func(c *Client) []string { return c.Scopes },
}

// A search's bounds, the organization search's (organization.maxOperands
// and MaxQueryValues, mirrored here with their wording): at most 50
// operands and 1,000 distinct values across them (an operand's repeats
// count once). Filtering runs in Go over every client of the project, so
// without them one operand of 100,000 values cost seconds a request.
const (
	maxOperands    = 50
	maxQueryValues = 1000
)

// parse returns the operand's field and its values as a set.
func (op operand) parse() (func(*Client) []string, map[string]bool, error) {
	if isNull(op.FilterName) {
		return nil, nil, apierr.New(apierr.M2MSearchMissingFilterName)
	}
	var name string
	if err := json.Unmarshal(op.FilterName, &name); err != nil {
		return nil, nil, apierr.New(apierr.M2MSearchFilterNameNotString)
	}
	if name == "" {
		return nil, nil, apierr.New(apierr.M2MSearchMissingFilterName)
	}
	field := searchFields[name]
	if field == nil {
		return nil, nil, apierr.New(apierr.M2MSearchFilterNameUnknown)
	}
	if isNull(op.FilterValue) {
		return nil, nil, apierr.New(apierr.M2MSearchMissingFilterValue)
	}
	var vals []string
	if err := json.Unmarshal(op.FilterValue, &vals); err != nil {
		return nil, nil, apierr.New(apierr.M2MSearchExpectedStrings)
	}
	set := make(map[string]bool, len(vals))
	for _, v := range vals {
		set[v] = true
	}
	return field, set, nil
}

// filterName is the operand's filter_name, once parse accepted it.
func (op operand) filterName() string {
	var name string
	_ = json.Unmarshal(op.FilterName, &name)
	return name
}

// isNull reports a member absent from the operand or sent as null.
func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// Search handles POST /v1/m2m/clients/search: filters client_id,
// client_name and scopes (each a list; a client matches an operand when
// any listed value matches), combined with AND or OR.
func (h Handlers) Search(r *http.Request) (any, error) {
	var req searchRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	var filters []func(*Client) bool
	and := true
	if req.Query != nil {
		switch req.Query.Operator {
		case "AND", "":
		case "OR":
			and = false
		default:
			return nil, apierr.Invalid("query.operator", "query.operator must be AND or OR.")
		}
		if len(req.Query.Operands) > maxOperands {
			return nil, apierr.Invalid("query.operands", fmt.Sprintf("A query takes at most %d operands.", maxOperands))
		}
		values := 0
		for _, op := range req.Query.Operands {
			field, vals, err := op.parse()
			if err != nil {
				return nil, err
			}
			if values += len(vals); values > maxQueryValues {
				name := op.filterName()
				return nil, apierr.Invalid("query.operands", fmt.Sprintf("%s: A query takes at most %d distinct filter values across its operands.", name, maxQueryValues)).
					WithDetails(map[string]any{"field": "query.operands", "filter_name": name})
			}
			filters = append(filters, func(c *Client) bool {
				return slices.ContainsFunc(field(c), func(v string) bool { return vals[v] })
			})
		}
	}
	match := func(c *Client) bool {
		if len(filters) == 0 {
			return true
		}
		for _, f := range filters {
			if f(c) != and {
				return !and
			}
		}
		return and
	}
	page, err := h.Store.Search(r.Context(), projectOf(r).ID, req.Cursor, req.Limit, match)
	if err != nil {
		return nil, err
	}
	out := &SearchResponse{M2MClients: make([]*Wire, 0, len(page.Clients)),
		ResultsMetadata: connectedapps.ResultsMetadata{Total: page.Total, NextCursor: page.NextCursor}}
	for _, c := range page.Clients {
		out.M2MClients = append(out.M2MClients, c.wire())
	}
	return out, nil
}
