package idp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/latchkey/latchkey/internal/store"
)

// A protocol endpoint's write under a row a concurrent request deleted
// (a connected app removed while its token is issued) that no step
// translated answers as the other faces do (httpapi.PublicError): a 404
// in the RFC's shape, not a server_error 500.
func TestProtocolErrorForAParentGone(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/v1/oauth2/token", nil)
	writeOAuth(w, r, http.StatusOK, nil, fmt.Errorf("idp: insert token: %w", store.ErrParentGone))
	var body oauthErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusNotFound || body.Error != "invalid_request" || body.StatusCode != http.StatusNotFound {
		t.Fatalf("answer %d %+v, want 404 invalid_request", w.Code, body)
	}
}
