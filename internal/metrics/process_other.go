//go:build !unix

package metrics

// Elsewhere (Windows, wasm) the scrape has no process families: reading
// them needs system calls this package does not make.
func processFamilies() []family { return nil }
