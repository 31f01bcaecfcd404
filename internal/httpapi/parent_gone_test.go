package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// A write whose parent a concurrent request deleted (store.ErrParentGone)
// that no domain translated is answered as the catalogue's 404
// resource_not_found, not a 500; a domain's own translation (here
// organization_not_found) stays the answer, and other errors stay 500.
func TestParentGoneIsNotAServerError(t *testing.T) {
	t.Parallel()
	fk := fmt.Errorf("%w: FOREIGN KEY constraint failed (787)", store.ErrParentGone)
	for _, c := range []struct {
		err    error
		status int
		typ    apierr.Type
	}{
		{fmt.Errorf("session: insert: %w", fk), http.StatusNotFound, apierr.ResourceNotFound},
		{apierr.Wrap(apierr.OrganizationNotFound, fk), http.StatusNotFound, apierr.OrganizationNotFound},
		{errors.New("disk full"), http.StatusInternalServerError, apierr.InternalServerError},
	} {
		w := httptest.NewRecorder()
		WriteError(w, httptest.NewRequest(http.MethodPost, "/x", nil), c.err)
		var body struct {
			StatusCode int    `json:"status_code"`
			ErrorType  string `json:"error_type"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%v: %v: %s", c.err, err, w.Body)
		}
		if w.Code != c.status || body.StatusCode != c.status || body.ErrorType != string(c.typ) {
			t.Errorf("%v answered %d %s, want %d %s", c.err, w.Code, w.Body, c.status, c.typ)
		}
		if got := PublicError(c.err); got.Type != c.typ {
			t.Errorf("PublicError(%v) = %s, want %s", c.err, got.Type, c.typ)
		}
	}
}
