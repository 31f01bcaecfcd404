package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type sample struct {
	Common
	Name  string   `json:"name"`
	Tags  []string `json:"tags"`
	HTML  string   `json:"html"`
	Inner *sample  `json:"inner,omitempty"`
}

type sdkSample struct {
	Common
	Name string `json:"name"`
}

func (s *sample) SDKWire() any { return &sdkSample{Name: s.Name + " (sdk)"} }

// A preencoded answer is byte for byte what encoding the payload gives, on
// both faces, whatever the request id holds.
func TestPreencodedMatchesEncoding(t *testing.T) {
	t.Parallel()
	payload := func() *sample {
		return &sample{Name: "é \u2028 \"q\"", Tags: []string{"a", "<b>"}, HTML: "<a href='x'>&</a>",
			Inner: &sample{Name: "inner"}}
	}
	for _, rid := range []string{"request-id-test-0d9c", "", "odd \"id\" <\u2028>\x01"} {
		for _, face := range []Face{SDK, Backend} {
			answer := func(p any) (int, http.Header, string) {
				r := httptest.NewRequest(http.MethodPost, "/x", nil)
				r, st := withState(r)
				st.requestID = rid
				w := httptest.NewRecorder()
				WriteJSON(w, r.WithContext(context.WithoutCancel(r.Context())), face, http.StatusCreated, p)
				return w.Code, w.Header(), w.Body.String()
			}
			wantCode, wantHeader, want := answer(payload())
			tail, _, err := EncodeTail(face, payload(), "")
			if err != nil {
				t.Fatal(err)
			}
			code, header, got := answer(Preencoded{Face: face, Tail: tail})
			if got != want || code != wantCode || header.Get("Content-Length") != wantHeader.Get("Content-Length") ||
				header.Get("Content-Type") != wantHeader.Get("Content-Type") {
				t.Errorf("face %d, request id %q:\n got %d %s\nwant %d %s", face, rid, code, got, wantCode, want)
			}
			// A secret is spliced in, never kept in the tail.
			for _, secret := range []string{"tok-3xY_z", "odd \"secret\"\u2028"} {
				p := payload()
				p.Inner.Name = secret
				_, _, want := answer(p)
				p.Inner.Name = "mark-0123456789"
				tail, at, err := EncodeTail(face, p, "mark-0123456789")
				if face == SDK { // the SDK form leaves the inner payload out
					if err == nil {
						t.Error("a mark missing from the answer was accepted")
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(tail), "mark") {
					t.Errorf("the mark was kept: %s", tail)
				}
				if _, _, got := answer(Preencoded{Face: face, Tail: tail, At: at, Value: secret}); got != want {
					t.Errorf("with a secret:\n got %s\nwant %s", got, want)
				}
			}
		}
	}
	if _, _, err := EncodeTail(Backend, &sample{Name: "m", HTML: "m"}, "m"); err == nil {
		t.Error("a mark found twice was accepted")
	}
	if _, _, err := EncodeTail(Backend, map[string]any{"a": 1}, ""); err == nil {
		t.Error("a payload without Common was preencoded")
	}
}
