package main

import (
	"bufio"
	"fmt"
	"mime"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// smtpSink is the bench's mail provider: an SMTP server on loopback that
// reads each message's subject for its login code ("123456 is your ...")
// and hands the code to the flow waiting for that recipient. A deployment
// sends through a provider on other machines, so the flows measured with it
// are what Latchkey itself does: production mode, the code read from the
// delivered mail (not from the dev mailbox), and nothing else on the cores
// but the sink's own small cost, which this process's CPU figure includes.
type smtpSink struct {
	ln       net.Listener
	mu       sync.Mutex
	waiting  map[string]chan string
	received atomic.Int64
	dials    atomic.Int64
	conns    sync.WaitGroup
}

func startSink() (*smtpSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &smtpSink{ln: ln, waiting: map[string]chan string{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.dials.Add(1)
			s.conns.Add(1)
			go func() { defer s.conns.Done(); s.serve(c) }()
		}
	}()
	return s, nil
}

func (s *smtpSink) addr() string { return s.ln.Addr().String() }

// close stops accepting and waits for the open connections, which the
// mailer closes after each batch.
func (s *smtpSink) close() {
	_ = s.ln.Close()
	s.conns.Wait()
}

// expect registers to before its send, so the code cannot arrive unseen.
func (s *smtpSink) expect(to string) <-chan string {
	ch := make(chan string, 1)
	s.mu.Lock()
	s.waiting[strings.ToLower(to)] = ch
	s.mu.Unlock()
	return ch
}

func (s *smtpSink) forget(to string) {
	s.mu.Lock()
	delete(s.waiting, strings.ToLower(to))
	s.mu.Unlock()
}

// code waits for to's code.
func (s *smtpSink) code(to string, ch <-chan string) (string, error) {
	defer s.forget(to)
	select {
	case c := <-ch:
		return c, nil
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("no mail for %s within 30 s", to)
	}
}

func (s *smtpSink) deliver(rcpts []string, subject string) {
	s.received.Add(1)
	code, _, _ := strings.Cut(subject, " ")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rcpts {
		if ch, ok := s.waiting[strings.ToLower(r)]; ok {
			select {
			case ch <- code:
			default:
			}
		}
	}
}

// serve speaks the part of SMTP (RFC 5321) a submission client uses
// without TLS or AUTH: EHLO, MAIL, RCPT, DATA, RSET, NOOP and QUIT.
func (s *smtpSink) serve(c net.Conn) {
	defer c.Close()
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	reply := func(lines ...string) bool {
		for _, l := range lines {
			w.WriteString(l + "\r\n")
		}
		return w.Flush() == nil
	}
	if !reply("220 sink.bench ESMTP") {
		return
	}
	var rcpts []string
	for {
		_ = c.SetDeadline(time.Now().Add(time.Minute))
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(line[:min(4, len(line))])
		ok := true
		switch verb {
		case "EHLO":
			ok = reply("250-sink.bench", "250-8BITMIME", "250 SMTPUTF8")
		case "HELO", "NOOP":
			ok = reply("250 OK")
		case "MAIL", "RSET":
			rcpts = rcpts[:0]
			ok = reply("250 OK")
		case "RCPT":
			addr := line[strings.IndexByte(line, '<')+1:]
			addr, _, _ = strings.Cut(addr, ">")
			rcpts = append(rcpts, addr)
			ok = reply("250 OK")
		case "DATA":
			if !reply("354 end with <CRLF>.<CRLF>") {
				return
			}
			subject, err := readData(r)
			if err != nil {
				return
			}
			s.deliver(rcpts, subject)
			ok = reply("250 OK queued")
		case "QUIT":
			reply("221 bye")
			return
		default:
			ok = reply("502 not implemented")
		}
		if !ok {
			return
		}
	}
}

// readData reads a message up to the lone dot and returns its decoded
// subject (header lines may be folded; RFC 5322 2.2.3).
func readData(r *bufio.Reader) (string, error) {
	var subject strings.Builder
	inHeader, inSubject := true, false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "." {
			break
		}
		if !inHeader {
			continue
		}
		switch {
		case line == "":
			inHeader = false
		case inSubject && (line[0] == ' ' || line[0] == '\t'):
			subject.WriteString(line)
		default:
			name, value, _ := strings.Cut(line, ":")
			inSubject = strings.EqualFold(name, "Subject")
			if inSubject {
				subject.WriteString(strings.TrimSpace(value))
			}
		}
	}
	raw := strings.TrimSpace(subject.String())
	decoded, err := new(mime.WordDecoder).DecodeHeader(raw)
	if err != nil {
		return raw, nil
	}
	return strings.TrimSpace(decoded), nil
}
