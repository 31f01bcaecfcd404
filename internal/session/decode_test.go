package session

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// The SDK's session check sends {}: its request type is read without
// encoding/json (httpapi.StringFields), and every body decodes to what
// encoding/json makes of it.
func TestRefreshRequestDecodesFlat(t *testing.T) {
	t.Parallel()
	var req any = &refreshRequest{}
	f, ok := req.(httpapi.StringFields)
	if !ok {
		t.Fatal("refreshRequest is not an httpapi.StringFields: the SDK's {} goes through encoding/json")
	}
	for _, key := range []string{"session_duration_minutes", "authorization_check", ""} {
		if f.StringField(key) != nil {
			t.Errorf("StringField(%q) is not nil, but refreshRequest has no plain string field", key)
		}
	}
	for _, body := range []string{
		``, `{}`, " {\n\t}\r\n",
		`{"session_duration_minutes":5}`,
		`{"session_duration_minutes":"5"}`,
		`{"authorization_check":{"organization_id":"o","resource_id":"r","action":"a"}}`,
		`{"x":"y"}`, `{"x":"y"} z`, `[]`,
	} {
		var got refreshRequest
		gotErr := httpapi.Decode(httptest.NewRequest("POST", "/", bytes.NewReader([]byte(body))), &got)
		var want refreshRequest
		wantErr := error(nil)
		if len(bytes.TrimSpace([]byte(body))) > 0 {
			wantErr = json.Unmarshal([]byte(body), &want)
		}
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%q) = %+v, %v; encoding/json: %+v, %v", body, got, gotErr, want, wantErr)
		}
	}
}
