package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/oauth/endpointerr"
)

// getJSON reads a provider API resource with a bearer token. what names
// the resource in errors; its URL never appears there: a URL may carry a
// token (HubSpot's token metadata has the access token in its path), and
// these errors become the logged cause of a refused callback.
func getJSON(ctx context.Context, client *http.Client, what, rawURL, token string, headers map[string]string, out any) error {
	_, err := fetchJSON(ctx, client, what, rawURL, token, headers, out)
	return err
}

// fetchJSON is getJSON that also returns the answer's header.
func fetchJSON(ctx context.Context, client *http.Client, what, rawURL, token string, headers map[string]string, out any) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrProvider, what, withoutURL(err))
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrProvider, what, withoutURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrProvider, what, withoutURL(err))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered %d", ErrProvider, what, resp.StatusCode)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrProvider, what, err)
	}
	return resp.Header, nil
}

// withoutURL is err without the URL that net/http puts in it: a
// *url.Error (the client's and the request parser's errors) names the
// operation and the whole URL around the cause; only the cause is kept.
// The cause itself names at most the host (a dial or TLS error).
func withoutURL(err error) error { return endpointerr.WithoutURL(err) }

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return strings.TrimRight(v, "/")
}
