package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

type namedAnswer struct{ s Subject }

func (n namedAnswer) AuditSubject() Subject { return n.s }

// An answer whose payload names its subject leaves it for the audit
// middleware on both faces; any other answer leaves none.
func TestWriteJSONNotesTheAnswersSubject(t *testing.T) {
	want := Subject{OrganizationID: "organization-test-1", MemberID: "member-test-1", MFAPending: true}
	for _, face := range []Face{Backend, SDK} {
		r, _ := withState(httptest.NewRequest(http.MethodPost, "/", nil))
		WriteJSON(httptest.NewRecorder(), r, face, http.StatusOK, namedAnswer{want})
		if got, ok := AnswerSubject(r.Context()); !ok || got != want {
			t.Errorf("face %v: subject %+v, %v; want %+v", face, got, ok, want)
		}
		r, _ = withState(httptest.NewRequest(http.MethodPost, "/", nil))
		WriteJSON(httptest.NewRecorder(), r, face, http.StatusOK, map[string]string{"member_id": "member-test-2"})
		if got, ok := AnswerSubject(r.Context()); ok {
			t.Errorf("face %v: an answer without a subject named %+v", face, got)
		}
	}
}
