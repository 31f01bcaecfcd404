// Package syncbuf is a byte buffer that several goroutines may write while
// another reads it: tests collect a server's or a child process's log
// lines in one for their failure messages and assertions.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer guarded by a mutex; its zero value is empty,
// unbounded and ready to use.
type Buffer struct {
	// Max, when positive, bounds what the buffer keeps: a write that would
	// take it past Max bytes is dropped whole (a log line is kept entire
	// or not at all), so that a long test's server log cannot grow
	// without end. Set before the first write.
	Max int

	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p, unless that would pass Max; it reports p written
// either way, so that a logger does not fail.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Max > 0 && s.b.Len()+len(p) > s.Max {
		return len(p), nil
	}
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
