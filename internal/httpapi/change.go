package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// SetActingMember records that the request acts with the session of
// member memberID of organization orgID: the SDK caller's session, or the
// member session header of a backend call. Whoever resolves a caller's
// session for authorization calls it, so the audit log can say who made a
// change (details.actor_member_id) rather than only whom it changed.
func SetActingMember(ctx context.Context, orgID, memberID string) {
	if st := stateOf(ctx); st != nil {
		st.actor = Subject{OrganizationID: orgID, MemberID: memberID}
	}
}

// ActingMember is the member SetActingMember recorded for the request of
// ctx; ok is false when the request acted with no member session (the
// project secret, or no credential at all).
func ActingMember(ctx context.Context) (s Subject, ok bool) {
	if st := stateOf(ctx); st != nil && st.actor.MemberID != "" {
		return st.actor, true
	}
	return Subject{}, false
}

// NoteSubject names the subject of a success whose answer names none (a
// revocation answers only a request id), as a Subjecter payload would.
func NoteSubject(ctx context.Context, s Subject) {
	if st := stateOf(ctx); st != nil {
		st.subject, st.hasSubject = s, true
	}
}

// BodyTap keeps the start of what a handler reads of a request body, for
// the names of its top-level JSON fields (FieldNames): an audit event
// names the fields a change sent, never their values. The handler reads
// the body as it would without the tap.
type BodyTap struct {
	body  io.ReadCloser
	keep  int
	bytes bytes.Buffer
}

// Limits of what FieldNames reports: a body's field names are the route's
// own (at most a few dozen, each short); anything past these is a client
// filling the log, not a change worth more words.
const (
	maxFieldNames = 64
	maxFieldName  = 64
)

// TapBody replaces r's body with a tap keeping up to keep bytes of it.
func TapBody(r *http.Request, keep int) *BodyTap {
	t := &BodyTap{body: r.Body, keep: keep}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = t
	}
	return t
}

// Read reads the body, keeping what fits.
func (t *BodyTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if room := t.keep - t.bytes.Len(); room > 0 && n > 0 {
		t.bytes.Write(p[:min(n, room)])
	}
	return n, err
}

// Close closes the body.
func (t *BodyTap) Close() error { return t.body.Close() }

// FieldNames returns the sorted, distinct names of the top-level fields of
// the JSON object the handler read, as far as the kept bytes reach (a cut
// body yields the names before the cut), at most maxFieldNames, each cut
// to maxFieldName bytes. A body that is not a JSON object has none.
func (t *BodyTap) FieldNames() []string {
	if t == nil || t.bytes.Len() == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(t.bytes.Bytes()))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for len(names) < maxFieldNames && dec.More() {
		tok, err := dec.Token()
		name, isKey := tok.(string)
		if err != nil || !isKey {
			break
		}
		if len(name) > maxFieldName {
			name = strings.ToValidUTF8(name[:maxFieldName], "")
		}
		if utf8.ValidString(name) {
			names = append(names, name)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			break
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
