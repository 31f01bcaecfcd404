package httpapi

import (
	"context"
	"net/http"
)

// Subject is whom a successful answer is about: what the audit log files a
// login or factor change under. The middleware that records them used to
// find it by parsing the answer's JSON back out of its bytes, a few
// kilobytes per login; an answer that names its subject spares that.
type Subject struct {
	OrganizationID, MemberID string
	// MFAPending: the answer carries an intermediate session token and no
	// session (a second factor is still due).
	MFAPending bool
}

// Subjecter is a payload that names its subject.
type Subjecter interface {
	AuditSubject() Subject
}

// noteSubject keeps payload's subject in r's state when it names one.
func noteSubject(r *http.Request, payload any) {
	s, ok := payload.(Subjecter)
	if !ok {
		return
	}
	if st := stateOf(r.Context()); st != nil {
		st.subject, st.hasSubject = s.AuditSubject(), true
	}
}

// AnswerSubject is the subject of the answer written for the request of
// ctx, when its payload named one (see Subjecter).
func AnswerSubject(ctx context.Context) (Subject, bool) {
	st := stateOf(ctx)
	if st == nil || !st.hasSubject {
		return Subject{}, false
	}
	return st.subject, true
}
