package connectedapps

import (
	"errors"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Handlers serve /v1/connected_apps/clients... on the backend face.
type Handlers struct {
	Store *Store
}

// NotFound maps a missing client to the catalogue.
func NotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return apierr.Wrap(apierr.ConnectedAppNotFound, err)
	}
	return err
}

type createRequest struct {
	ClientType string `json:"client_type"`
	Fields
}

// Create handles POST /v1/connected_apps/clients.
func (h Handlers) Create(r *http.Request) (any, error) {
	var req createRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := httpapi.Required("client_type", req.ClientType); err != nil {
		return nil, err
	}
	p := project.CallerFrom(r.Context()).Project
	a, secret, err := h.Store.Create(r.Context(), p.ID, p.Env, req.ClientType, req.Fields)
	if err != nil {
		return nil, err
	}
	return &AppResponse{ConnectedApp: a.Wire().withSecrets(secret, "")}, nil
}

// Get handles GET /v1/connected_apps/clients/{client_id}.
func (h Handlers) Get(r *http.Request) (any, error) {
	a, err := h.Store.Get(r.Context(), project.CallerFrom(r.Context()).Project.ID, r.PathValue("client_id"))
	if err != nil {
		return nil, NotFound(err)
	}
	return &AppResponse{ConnectedApp: a.Wire()}, nil
}

// Update handles PUT /v1/connected_apps/clients/{client_id}.
func (h Handlers) Update(r *http.Request) (any, error) {
	var f Fields
	if err := httpapi.Decode(r, &f); err != nil {
		return nil, err
	}
	a, err := h.Store.Update(r.Context(), project.CallerFrom(r.Context()).Project.ID, r.PathValue("client_id"), f)
	if err != nil {
		return nil, NotFound(err)
	}
	return &AppResponse{ConnectedApp: a.Wire()}, nil
}

// Delete handles DELETE /v1/connected_apps/clients/{client_id}.
func (h Handlers) Delete(r *http.Request) (any, error) {
	id := r.PathValue("client_id")
	if err := h.Store.Delete(r.Context(), project.CallerFrom(r.Context()).Project.ID, id); err != nil {
		return nil, NotFound(err)
	}
	return &DeleteResponse{ClientID: id}, nil
}

type searchRequest struct {
	Cursor string `json:"cursor"`
	Limit  int    `json:"limit"`
}

// Search handles POST /v1/connected_apps/clients/search.
func (h Handlers) Search(r *http.Request) (any, error) {
	var req searchRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	page, err := h.Store.Search(r.Context(), project.CallerFrom(r.Context()).Project.ID, req.Cursor, req.Limit)
	if err != nil {
		return nil, err
	}
	out := &SearchResponse{ConnectedApps: make([]*ConnectedApp, 0, len(page.Apps)),
		ResultsMetadata: ResultsMetadata{Total: page.Total, NextCursor: page.NextCursor}}
	for _, a := range page.Apps {
		out.ConnectedApps = append(out.ConnectedApps, a.Wire())
	}
	return out, nil
}

// Rotate returns the handler of one rotation step
// (POST .../secrets/rotate/start, .../secrets/rotate, .../secrets/rotate/cancel).
func (h Handlers) Rotate(step string) httpapi.HandlerFunc {
	return func(r *http.Request) (any, error) {
		a, next, err := h.Store.Rotate(r.Context(), project.CallerFrom(r.Context()).Project.ID, r.PathValue("client_id"), step)
		if err != nil {
			return nil, NotFound(err)
		}
		w := a.Wire()
		if next != "" { // rotate/start: the one answer that shows the next secret
			w = w.withSecrets("", next)
		}
		return &AppResponse{ConnectedApp: w}, nil
	}
}
