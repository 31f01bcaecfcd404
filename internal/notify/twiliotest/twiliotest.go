// Package twiliotest is a local HTTP server that speaks the part of the
// Twilio Messages API Latchkey uses, for tests: it checks Basic auth and the
// form fields exactly as Twilio does, records accepted messages, answers
// with Twilio's JSON shapes, and can be told to refuse a recipient with a
// given Twilio error code.
package twiliotest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is an accepted message.
type Message struct {
	SID                 string
	To                  string
	From                string
	MessagingServiceSID string
	Body                string
}

// Refusal is how the server answers sends to one recipient.
type Refusal struct {
	Status  int
	Code    int
	Message string
}

// Failure is how the server answers sends to one recipient that it
// accepts (201, a message resource) but marks failed at once, as Twilio
// does for some carrier refusals.
type Failure struct {
	Status  string // the resource's status: "failed" or "undelivered"
	Code    int    // its error_code; 0 sends null
	Message string // its error_message; "" sends null
}

// Server is a running fake gateway.
type Server struct {
	URL   string
	SID   string
	Token string

	mu       sync.Mutex
	messages []Message
	refuse   map[string]Refusal
	fail     map[string]Failure
	requests int
}

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)

// New starts a server for account sid with auth token token; it stops when
// the test ends.
func New(t testing.TB, sid, token string) *Server {
	t.Helper()
	s := &Server{SID: sid, Token: token, refuse: map[string]Refusal{}, fail: map[string]Failure{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2010-04-01/Accounts/{sid}/Messages.json", s.create)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Refuse makes sends to the number to fail with r.
func (s *Server) Refuse(to string, r Refusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse[to] = r
}

// Fail makes sends to the number to be accepted with f's failed status.
func (s *Server) Fail(to string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[to] = f
}

// Messages returns the accepted messages, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Requests counts every request that reached the messages route.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	s.mu.Unlock()
	user, pass, ok := r.BasicAuth()
	if !ok || user != s.SID || pass != s.Token || r.PathValue("sid") != s.SID {
		writeError(w, http.StatusUnauthorized, 20003, "Authenticate")
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		writeError(w, http.StatusBadRequest, 20001, "Content-Type must be application/x-www-form-urlencoded")
		return
	}
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, 20001, "Malformed form body")
		return
	}
	m := Message{To: r.PostForm.Get("To"), From: r.PostForm.Get("From"),
		MessagingServiceSID: r.PostForm.Get("MessagingServiceSid"), Body: r.PostForm.Get("Body")}
	switch {
	case m.To == "":
		writeError(w, http.StatusBadRequest, 21604, "A 'To' phone number is required.")
		return
	case !e164.MatchString(m.To):
		writeError(w, http.StatusBadRequest, 21211, fmt.Sprintf("The 'To' number %s is not a valid phone number.", m.To))
		return
	case m.From == "" && m.MessagingServiceSID == "":
		writeError(w, http.StatusBadRequest, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message")
		return
	case m.Body == "":
		writeError(w, http.StatusBadRequest, 21602, "Message body is required.")
		return
	}
	s.mu.Lock()
	ref, refused := s.refuse[m.To]
	failure, failed := s.fail[m.To]
	if !refused {
		m.SID = fmt.Sprintf("SM%032d", len(s.messages)+1)
		s.messages = append(s.messages, m)
	}
	s.mu.Unlock()
	if refused {
		writeError(w, ref.Status, ref.Code, ref.Message)
		return
	}
	status, errCode, errMessage := "queued", any(nil), any(nil)
	if failed {
		status, errMessage = failure.Status, nilIfEmpty(failure.Message)
		if failure.Code != 0 {
			errCode = failure.Code
		}
	}
	now := time.Now().UTC().Format(time.RFC1123Z)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"account_sid": s.SID, "api_version": "2010-04-01", "body": m.Body, "date_created": now, "date_sent": nil,
		"date_updated": now, "direction": "outbound-api", "error_code": errCode, "error_message": errMessage, "from": m.From,
		"messaging_service_sid": nilIfEmpty(m.MessagingServiceSID), "num_media": "0", "num_segments": "1",
		"price": nil, "price_unit": "USD", "sid": m.SID, "status": status, "to": m.To,
		"uri": "/2010-04-01/Accounts/" + s.SID + "/Messages/" + m.SID + ".json",
	})
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg,
		"more_info": fmt.Sprintf("https://www.twilio.com/docs/errors/%d", code), "status": status})
}
