package httpapi

import (
	"context"
	"log/slog"
	"net/http"
)

// reqState is what the edge middleware learns about one request (its id,
// client address, logger, route, Basic credentials), kept in a single
// context value. Every r.WithContext copies the whole request, so on the
// hot path (a session check per customer request) one copy for all of
// them, instead of one per middleware, is a measurable share of the work.
// The first middleware that needs it adds it; the others fill it in. It is
// shared by every copy of the request and used by one goroutine at a time
// (the one serving the request).
type reqState struct {
	requestID string
	logger    *slog.Logger

	hasClient           bool
	clientIP, userAgent string
	limitIP             string // clientIP as rate limits count it (ClientIP)

	route     routeLabel
	projectID string // SetProject

	// observed is set by WithObserver, whose recorder (rec) the logger
	// reads the status from instead of wrapping the writer again.
	observed bool
	rec      Recorder

	// The Basic credentials BasicAuth parsed, and the Authorization
	// header they came from (see BasicAuth).
	basicParsed          bool
	basicOK              bool
	basicHeader          string
	basicUser, basicPass string

	// refs resolves the references of the bodies Decode reads
	// (SetRefResolver).
	refs RefResolver

	// subject is what the answer's payload said it is about (see Subject).
	hasSubject bool
	subject    Subject

	// actor is the member whose session the request acts with
	// (SetActingMember).
	actor Subject

	// shapes are the error shapes of the edge's refusals (WithErrorShapes).
	shapes *ErrorShapes
}

type stateKey struct{}

func stateOf(ctx context.Context) *reqState {
	st, _ := ctx.Value(stateKey{}).(*reqState)
	return st
}

// withState returns r with a state, adding one only when it has none.
func withState(r *http.Request) (*http.Request, *reqState) {
	if st := stateOf(r.Context()); st != nil {
		return r, st
	}
	st := &reqState{}
	return r.WithContext(context.WithValue(r.Context(), stateKey{}, st)), st
}

// BasicAuth is r.BasicAuth, decoded once per request: the edge checks the
// credentials are clean text, the CORS policy and the face's
// authentication read them again.
//
// The memo is keyed by the Authorization header it was parsed from. The
// state is shared by every copy of the request (r.Clone, r.WithContext),
// and a copy may carry other credentials (SetBasicAuth on a clone): it
// must be judged by its own, not by the original's, or a check meant for
// one project would read as another's (or as no credentials at all).
func BasicAuth(r *http.Request) (user, pass string, ok bool) {
	st := stateOf(r.Context())
	if st == nil {
		return r.BasicAuth()
	}
	if h := r.Header.Get("Authorization"); !st.basicParsed || h != st.basicHeader {
		st.basicUser, st.basicPass, st.basicOK = r.BasicAuth()
		st.basicHeader, st.basicParsed = h, true
	}
	return st.basicUser, st.basicPass, st.basicOK
}
