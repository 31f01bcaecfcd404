package app

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sync"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
)

var errWidgetNotBuilt = errors.New("widget assets missing: run `make build` so the binary embeds web/widget/dist")

// widgetHandler serves the built widget: /widget/latchkey.js (standalone)
// and /widget/esm/... (the ESM build). Files are revalidated on every load
// so a deploy is picked up at once; ETags keep that cheap.
func (a *App) widgetHandler() http.Handler {
	var mu sync.Mutex
	etags := map[string]string{} // the embedded files never change, so hash each once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean(r.PathValue("file"))
		f, err := fs.ReadFile(a.widget, name)
		if err != nil {
			if name == "latchkey.js" {
				httpapi.WriteError(w, r, apierr.Wrap(apierr.RouteNotFound, errWidgetNotBuilt).
					WithMessage("The widget is not built into this binary. Run `make build`."))
				return
			}
			httpapi.WriteError(w, r, apierr.Wrap(apierr.RouteNotFound, err))
			return
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if path.Ext(name) == ".js" || path.Ext(name) == ".mjs" {
			ct = "text/javascript; charset=utf-8"
		}
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		mu.Lock()
		tag, ok := etags[name]
		if !ok {
			tag = etag(f)
			etags[name] = tag
		}
		mu.Unlock()
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(f)
	})
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}
