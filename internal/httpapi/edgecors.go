package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// CORSOnRefusal is the error writer (ErrorShapes) of a face served behind
// WithCORS: the edge's own refusals there (a body over the limit, dirty
// input, a panic), raised before WithCORS has run, are answered by wr with
// the CORS answer headers WithCORS would have added. Without them a
// browser page cannot read the refusal, and the SDK reports "Unable to
// contact our servers." instead of the catalogue's error.
//
// The origin is decided by policy, WithCORS's own, as for a request
// without credentials (is it an origin some project authorizes?): the
// request was refused before it was authenticated, and what it carries
// (credentials, query, body) may be what was refused, so none of it is
// read; the Origin header is used only when it is clean text. The answer
// is a catalogue error naming no project. Preflights are not answered
// here: only the answer headers are added, to the refusal. A refusal
// raised once WithCORS has run (a panic in a handler) keeps the CORS
// answer WithCORS gave.
func CORSOnRefusal(policy OriginPolicy, wr ErrorWriter) ErrorWriter {
	return func(w http.ResponseWriter, r *http.Request, e *apierr.Error) {
		refusalCORS(w, r, policy)
		wr(w, r, e)
	}
}

func refusalCORS(w http.ResponseWriter, r *http.Request, policy OriginPolicy) {
	h := w.Header()
	if variesByOrigin(h) {
		return // WithCORS has answered this request's CORS already
	}
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if origin == "" || !Clean(origin) || !allowedWithoutCredentials(r, origin, policy) {
		return
	}
	h["Access-Control-Allow-Origin"] = []string{origin}
	h.Set("Access-Control-Allow-Credentials", "true")
}

// allowedWithoutCredentials asks policy about origin for a request
// carrying nothing but the origin. The request's state, which may hold its
// decoded credentials (BasicAuth), is hidden from the policy. A policy that
// panics (the refusal being answered may be its panic) allows nothing.
func allowedWithoutCredentials(r *http.Request, origin string, policy OriginPolicy) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	ctx := context.WithValue(r.Context(), stateKey{}, (*reqState)(nil))
	bare := (&http.Request{Method: r.Method, URL: r.URL, Host: r.Host, Header: http.Header{"Origin": {origin}}}).WithContext(ctx)
	return policy.AllowOrigin(bare, origin, false)
}

// variesByOrigin reports whether a Vary header names Origin.
func variesByOrigin(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), "Origin") {
				return true
			}
		}
	}
	return false
}
