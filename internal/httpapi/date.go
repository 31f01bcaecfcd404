package httpapi

import (
	"net/http"
	"sync/atomic"
	"time"
)

// net/http formats a Date header for every answer that has none, with
// time.Time.AppendFormat: about a microsecond per answer, the same string
// for a whole second. writeBody sets Date itself from this cache, which
// formats it once per second; net/http then leaves it alone.
//
// It reads time.Now rather than an injected clock: Date is the wall clock
// net/http would have stamped (it calls time.Now itself), and no rule of
// the service depends on it, so a test clock has nothing to move here.

// dateValue is the Date header of one second.
type dateValue struct {
	unix  int64
	value []string // shared by every answer of the second, never edited
}

var currentDate atomic.Pointer[dateValue]

// dateHeader returns the Date header for now, as net/http formats it.
func dateHeader() []string {
	now := time.Now()
	sec := now.Unix()
	d := currentDate.Load()
	if d != nil && d.unix == sec {
		return d.value
	}
	next := &dateValue{unix: sec, value: []string{now.UTC().Format(http.TimeFormat)}}
	if d == nil || d.unix < sec {
		// Losing the race to another request of this second or a later
		// one is fine: this answer still carries its own second.
		currentDate.CompareAndSwap(d, next)
	}
	return next.value
}
