package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// The process families of the client library's default process collector,
// read from /proc/self as it read them. A file that cannot be read leaves
// its families out of the scrape, as the library did by default.

// userHZ is the unit of /proc's CPU times and start time. The kernel
// exposes USER_HZ as 100 on every architecture Go runs on, and reading it
// properly (sysconf) needs cgo; the library assumed 100 too.
const userHZ = 100

func processFamilies() []family {
	var fs []family
	if st, err := readProcStat(); err == nil {
		fs = append(fs,
			single("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
				counterKind, float64(st.utime+st.stime)/userHZ),
			single("process_virtual_memory_bytes", "Virtual memory size in bytes.", gaugeKind, float64(st.vsize)),
			single("process_resident_memory_bytes", "Resident memory size in bytes.",
				gaugeKind, float64(st.rssPages)*float64(os.Getpagesize())))
		if boot, err := bootTime(); err == nil {
			fs = append(fs, single("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
				gaugeKind, float64(boot)+float64(st.starttime)/userHZ))
		}
	}
	if n, err := openFDs(); err == nil {
		fs = append(fs, single("process_open_fds", "Number of open file descriptors.", gaugeKind, float64(n)))
	}
	if files, space, err := limits(); err == nil {
		fs = append(fs,
			single("process_max_fds", "Maximum number of open file descriptors.", gaugeKind, files),
			single("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", gaugeKind, space))
	}
	if in, out, err := netOctets(); err == nil {
		fs = append(fs,
			single("process_network_receive_bytes_total", "Number of bytes received by the process over the network.",
				counterKind, in),
			single("process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.",
				counterKind, out))
	}
	return fs
}

type procStat struct{ utime, stime, starttime, vsize, rssPages uint64 }

// readProcStat reads proc(5)'s /proc/self/stat. The command name (field 2)
// is in parentheses and may hold spaces or parentheses itself, so the
// fields are counted from after its last ')'.
func readProcStat() (procStat, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return procStat{}, fmt.Errorf("metrics: %w", err)
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("metrics: /proc/self/stat has no command name")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	const first = 3
	var st procStat
	for _, v := range []struct {
		field int
		dst   *uint64
	}{{14, &st.utime}, {15, &st.stime}, {22, &st.starttime}, {23, &st.vsize}, {24, &st.rssPages}} {
		if len(f) <= v.field-first {
			return procStat{}, errors.New("metrics: /proc/self/stat is short")
		}
		if *v.dst, err = strconv.ParseUint(f[v.field-first], 10, 64); err != nil {
			return procStat{}, fmt.Errorf("metrics: /proc/self/stat field %d: %w", v.field, err)
		}
	}
	return st, nil
}

// bootTime is /proc/stat's btime, the boot in seconds since the epoch.
func bootTime() (uint64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("metrics: /proc/stat has no btime")
}

// openFDs counts /proc/self/fd. Since Linux 6.2 the directory's size is
// the count, which saves listing it.
func openFDs() (int, error) {
	if fi, err := os.Stat("/proc/self/fd"); err == nil && fi.Size() > 0 {
		return int(fi.Size()), nil
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, fmt.Errorf("metrics: /proc/self/fd: %w", err)
	}
	return len(names), nil
}

// limits are the soft limits on open files and address space from
// /proc/self/limits; "unlimited" is the largest uint64, as the library
// reported it.
func limits() (files, space float64, err error) {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0, 0, fmt.Errorf("metrics: %w", err)
	}
	found := 0
	for line := range strings.Lines(string(b)) {
		var dst *float64
		var rest string
		if r, ok := strings.CutPrefix(line, "Max open files "); ok {
			dst, rest = &files, r
		} else if r, ok := strings.CutPrefix(line, "Max address space "); ok {
			dst, rest = &space, r
		} else {
			continue
		}
		soft, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if soft == "unlimited" {
			*dst = math.MaxUint64
		} else if n, err := strconv.ParseUint(soft, 10, 64); err == nil {
			*dst = float64(n)
		} else {
			return 0, 0, fmt.Errorf("metrics: /proc/self/limits: %q: %w", soft, err)
		}
		found++
	}
	if found != 2 {
		return 0, 0, errors.New("metrics: /proc/self/limits lacks open files or address space")
	}
	return files, space, nil
}

// netOctets are the IpExt InOctets and OutOctets of /proc/self/net/netstat:
// pairs of lines, names then values, per protocol. They count the whole
// network namespace, not only this process; the library read the same
// file. A file without them reads as zero, as it did in the library.
func netOctets() (in, out float64, err error) {
	b, err := os.ReadFile("/proc/self/net/netstat")
	if err != nil {
		return 0, 0, fmt.Errorf("metrics: %w", err)
	}
	lines := strings.Split(string(b), "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		names, values := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(names) == 0 || names[0] != "IpExt:" || len(names) != len(values) {
			continue
		}
		for j, name := range names {
			var dst *float64
			switch name {
			case "InOctets":
				dst = &in
			case "OutOctets":
				dst = &out
			default:
				continue
			}
			if *dst, err = strconv.ParseFloat(values[j], 64); err != nil {
				return 0, 0, fmt.Errorf("metrics: /proc/self/net/netstat %s: %w", name, err)
			}
		}
	}
	return in, out, nil
}
