// Package widget embeds the built login widget (dist/, produced by
// `npm run build`) so the single binary can serve it. dist/ is not
// committed; a binary built without it answers the widget routes with a
// clear error telling the operator to run `make build`.
package widget

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist returns the build output with dist/ stripped from paths.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the directive above guarantees dist exists
	}
	return sub
}
