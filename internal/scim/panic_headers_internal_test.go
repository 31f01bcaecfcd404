package scim

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// A panic on the service's paths is answered 500 in SCIM's error shape
// (the ErrorShapeRoute scim.go registers) with the headers every answer
// carries, its CSP among them. The edge's order (app.Handler) puts
// WithRecover outside WithSecurityHeaders, so SCIM's writer, which set no
// CSP of its own, sent the 500 without one, unlike httpapi's writeBody
// (httpapi's TestPanicAnswerCarriesSecurityHeaders).
func TestPanicAnswerCarriesSecurityHeaders(t *testing.T) {
	t.Parallel()
	shapes := &httpapi.ErrorShapes{}
	shapes.Add("/v1/b2b/scim/{connection_id}/{path...}", writeAPIError)
	h := httpapi.Chain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }),
		httpapi.WithRequestID("test"), httpapi.WithErrorShapes(shapes), httpapi.WithClientIP(nil),
		httpapi.WithRecover(), httpapi.WithSecurityHeaders(true), httpapi.WithBodyLimit(1<<10), httpapi.WithCleanInput())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/b2b/scim/scim-connection-test-1/Users", nil))
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 500 || body.Status != "500" ||
		len(body.Schemas) != 1 || body.Schemas[0] != schemaError {
		t.Fatalf("panic answered %d %s (%v), not SCIM's 500", rec.Code, rec.Body, err)
	}
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Strict-Transport-Security": "max-age=31536000",
		"Content-Security-Policy": httpapi.APICSP, "Cache-Control": "no-store", "Content-Type": contentType} {
		if got := rec.Header().Get(k); got != want {
			t.Errorf("panic answer: %s %q, want %q", k, got, want)
		}
	}
}
