package apptest

import "sync"

// Together runs f(0) to f(n-1) in n goroutines released at once, and
// returns their results by index: the race tests' way to make concurrent
// requests meet on a row (on PostgreSQL, READ COMMITTED lets a read-then-
// write race that SQLite's single writer never shows).
func Together[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}
