package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingConn counts the writes that reach the socket.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{Conn: c, writes: l.writes}, nil
}

// gatherServer serves h behind the edge middleware that wraps the writer
// (security headers, observer), on a real socket whose writes are counted.
func gatherServer(t *testing.T, h http.Handler) (addr string, writes *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	writes = new(atomic.Int64)
	h = Chain(h, WithRequestID("test"), WithObserver(func(string, int, time.Duration) {}), WithSecurityHeaders(false))
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(Gather(srv, countingListener{Listener: ln, writes: writes}))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), writes
}

// post sends one request on c and reads the whole answer.
func post(t *testing.T, c net.Conn, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	if _, err := io.WriteString(c, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// An answer longer than net/http's 4 KB connection buffer leaves in one
// write, whole and with its length, and the connection stays usable;
// short ones and ones over the gathering bound are sent whole too.
func TestGatherSendsAnAnswerInOneWrite(t *testing.T) {
	t.Parallel()
	for _, n := range []int{100, 5000, 20000, gatherMax + 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			payload := &sample{Name: strings.Repeat("n", n)}
			addr, writes := gatherServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				WriteJSON(w, r, Backend, http.StatusOK, payload)
			}))
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for i := range 3 { // keep-alive: each answer on the same connection
				before := writes.Load()
				res, body := post(t, c, br)
				if res.StatusCode != http.StatusOK || res.ContentLength != int64(len(body)) ||
					!strings.Contains(body, payload.Name) || !strings.HasSuffix(body, "}\n") {
					t.Fatalf("answer %d: status %d, length %d of %d", i, res.StatusCode, res.ContentLength, len(body))
				}
				if res.Header.Get("Content-Security-Policy") == "" {
					t.Fatal("the security headers are missing")
				}
				got := writes.Load() - before
				if n <= gatherMax && got != 1 {
					t.Fatalf("answer %d of %d bytes took %d writes, want 1", i, len(body), got)
				}
			}
		})
	}
}

// A flush from a handler reaches the client through every wrapper of the
// writer (the security headers' writer wraps the observer's Recorder,
// which is no Flusher itself): a stream's first part arrives while the
// handler still runs.
func TestFlushReachesTheClientThroughTheMiddleware(t *testing.T) {
	t.Parallel()
	second := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(second) }) }
	t.Cleanup(release)
	addr, _ := gatherServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-second:
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		_, _ = io.WriteString(w, "data: second\n\n")
	}))
	// Without the flush nothing, not even the headers, leaves before the
	// handler ends: the client's deadline ends the wait.
	client := &http.Client{Timeout: 3 * time.Second}
	res, err := client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("the flushed part never arrived: %v", err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	if l, err := br.ReadString('\n'); l != "data: first\n" {
		t.Fatalf("first line %q (%v)", l, err)
	}
	release()
	rest, _ := io.ReadAll(br)
	if !strings.Contains(string(rest), "data: second") {
		t.Fatalf("rest %q", rest)
	}
}
