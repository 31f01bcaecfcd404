//go:build !linux

package store

import (
	"syscall"
	"time"
)

// setUserTimeout is Linux only (TCP_USER_TIMEOUT); elsewhere keepalive
// alone notices a silent peer.
func setUserTimeout(time.Duration) func(network, address string, c syscall.RawConn) error { return nil }
