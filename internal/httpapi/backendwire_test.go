package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// both has a wire type on each face; the backend one leaves Internal out.
type both struct {
	Common
	Name     string `json:"name"`
	Internal string `json:"internal"`
}

type backendBoth struct {
	Common
	Name string `json:"name"`
}

func (b *both) SDKWire() any     { return &sdkSample{Name: b.Name + " (sdk)"} }
func (b *both) BackendWire() any { return &backendBoth{Name: b.Name} }

// A BackendWirer answers the backend face with its backend wire type, both
// written and preencoded, with the common fields filled in; the SDK face
// still answers its SDK wire type, and a payload without one is itself.
func TestBackendWirerShapesTheBackendAnswer(t *testing.T) {
	t.Parallel()
	answer := func(face Face, p any) string {
		r := httptest.NewRequest(http.MethodPost, "/x", nil)
		r, st := withState(r)
		st.requestID = "request-id-test-1"
		w := httptest.NewRecorder()
		WriteJSON(w, r, face, http.StatusOK, p)
		return strings.TrimSpace(w.Body.String())
	}
	p := func() *both { return &both{Name: "n", Internal: "secret-of-the-domain"} }
	want := `{"request_id":"request-id-test-1","status_code":200,"name":"n"}`
	if got := answer(Backend, p()); got != want {
		t.Errorf("backend answer:\n got %s\nwant %s", got, want)
	}
	tail, _, err := EncodeTail(Backend, p(), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := answer(Backend, Preencoded{Face: Backend, Tail: tail}); got != want {
		t.Errorf("preencoded backend answer:\n got %s\nwant %s", got, want)
	}
	if got := answer(SDK, p()); got != `{"data":{"request_id":"request-id-test-1","status_code":200,"name":"n (sdk)"}}` {
		t.Errorf("SDK answer: %s", got)
	}
	if got := answer(Backend, &sample{Name: "s"}); !strings.Contains(got, `"tags":null`) {
		t.Errorf("a payload without a backend wire type: %s", got)
	}
}
