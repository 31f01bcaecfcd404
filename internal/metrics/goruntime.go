package metrics

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The Go runtime families of the client library's default Go collector,
// with its names, types and HELP texts, which operators' dashboards and
// alerts query.

// memStat is one go_memstats_* family read from runtime.MemStats.
type memStat struct {
	name, help string
	kind       kind
	value      func(*runtime.MemStats) uint64
}

var memStats = []memStat{
	{"go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.Alloc }},
	{"go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.",
		counterKind, func(s *runtime.MemStats) uint64 { return s.TotalAlloc }},
	{"go_memstats_buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.BuckHashSys }},
	{"go_memstats_frees_total", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.",
		counterKind, func(s *runtime.MemStats) uint64 { return s.Frees }},
	{"go_memstats_gc_sys_bytes", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.GCSys }},
	{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.HeapAlloc }},
	{"go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.HeapIdle }},
	{"go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.HeapInuse }},
	{"go_memstats_heap_objects", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.HeapObjects }},
	{"go_memstats_heap_released_bytes", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.HeapReleased }},
	{"go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.HeapSys }},
	{"go_memstats_mallocs_total", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.",
		counterKind, func(s *runtime.MemStats) uint64 { return s.Mallocs }},
	{"go_memstats_mcache_inuse_bytes", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.MCacheInuse }},
	{"go_memstats_mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.MCacheSys }},
	{"go_memstats_mspan_inuse_bytes", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.MSpanInuse }},
	{"go_memstats_mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.MSpanSys }},
	{"go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.NextGC }},
	{"go_memstats_other_sys_bytes", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.OtherSys }},
	{"go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.StackInuse }},
	{"go_memstats_stack_sys_bytes", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.StackSys }},
	{"go_memstats_sys_bytes", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.",
		gaugeKind, func(s *runtime.MemStats) uint64 { return s.Sys }},
}

// runtimeSettings are read through runtime/metrics, as the client library's
// default Go collector reads them.
var runtimeSettings = []struct{ sample, name, help string }{
	{"/gc/gogc:percent", "go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent."},
	{"/gc/gomemlimit:bytes", "go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from /gc/gomemlimit:bytes."},
	{"/sched/gomaxprocs:threads", "go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads."},
}

func goFamilies() []family {
	// ReadMemStats stops the world for a moment; once per scrape, as the
	// client library did.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fs := make([]family, 0, len(memStats)+len(runtimeSettings)+6)
	for _, s := range memStats {
		fs = append(fs, single(s.name, s.help, s.kind, float64(s.value(&ms))))
	}
	fs = append(fs, single("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.",
		gaugeKind, float64(ms.LastGC)/1e9))

	samples := make([]metrics.Sample, len(runtimeSettings))
	for i, s := range runtimeSettings {
		samples[i].Name = s.sample
	}
	metrics.Read(samples)
	for i, s := range runtimeSettings {
		if samples[i].Value.Kind() == metrics.KindUint64 { // KindBad: not in this Go release
			fs = append(fs, single(s.name, s.help, gaugeKind, float64(samples[i].Value.Uint64())))
		}
	}

	threads, _ := runtime.ThreadCreateProfile(nil)
	return append(fs, gcPauses(),
		single("go_goroutines", "Number of goroutines that currently exist.", gaugeKind, float64(runtime.NumGoroutine())),
		single("go_threads", "Number of OS threads created.", gaugeKind, float64(threads)),
		family{name: "go_info", help: "Information about the Go environment.", kind: gaugeKind,
			series: []series{{labels: []label{{"version", runtime.Version()}}, points: []point{{value: 1}}}}})
}

// gcPauses is the summary of stop-the-world pauses: quantiles 0 (the
// least), 0.25, 0.5, 0.75 and 1 (the longest) of the pauses the runtime
// remembers, with the total and the number of collections.
func gcPauses() family {
	var st debug.GCStats
	st.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&st)
	var s series
	for i, q := range st.PauseQuantiles {
		s.points = append(s.points, point{
			extra: label{"quantile", string(appendValue(nil, float64(i)/float64(len(st.PauseQuantiles)-1)))},
			value: q.Seconds()})
	}
	s.points = append(s.points, point{suffix: "_sum", value: st.PauseTotal.Seconds()},
		point{suffix: "_count", value: float64(st.NumGC)})
	return family{name: "go_gc_duration_seconds", kind: summaryKind, series: []series{s},
		help: "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles."}
}
