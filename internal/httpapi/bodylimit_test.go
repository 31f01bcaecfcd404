package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A body sent without a length (chunked) is not stopped by the
// Content-Length check: the limit must hold while it is read, or any
// client could make the server buffer as much as it cares to send.
func TestBodyLimitHoldsForBodiesWithoutALength(t *testing.T) {
	var read int
	h := Chain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if err := Decode(r, &v); err != nil {
			WriteError(w, r, err)
			return
		}
		read = len(v)
		w.WriteHeader(http.StatusNoContent)
	}), WithBodyLimit(1<<10))
	body := `{"a":"` + strings.Repeat("x", 4<<10) + `"}`
	// A reader of no known type: the request's length is unknown (-1).
	req := httptest.NewRequest(http.MethodPost, "http://x/v1/x", io.MultiReader(strings.NewReader(body)))
	req.Header.Set("Content-Type", "application/json")
	if req.ContentLength != -1 {
		t.Fatalf("the request has a length (%d): the test needs one without", req.ContentLength)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var e struct {
		ErrorType string `json:"error_type"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &e)
	if rec.Code != http.StatusRequestEntityTooLarge || e.ErrorType != "request_too_large" || read != 0 {
		t.Fatalf("a %d-byte body without a length: %d %q (decoded %d fields), want 413 request_too_large",
			len(body), rec.Code, e.ErrorType, read)
	}
}
