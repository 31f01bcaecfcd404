//go:build unix && !linux

package metrics

import "syscall"

// Without /proc, the process families that getrusage(2) and getrlimit(2)
// answer portably; the others are left out rather than guessed.
func processFamilies() []family {
	var fs []family
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		fs = append(fs, single("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
			counterKind, float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9))
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		fs = append(fs, single("process_max_fds", "Maximum number of open file descriptors.", gaugeKind, float64(lim.Cur)))
	}
	return fs
}
