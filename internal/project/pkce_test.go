package project

import (
	"context"
	"testing"
)

// pkce_required_for_email_magic_links binds the browser's sends only: the
// backend face (the project secret) is exempt, and a ctx that names no
// caller enforces, so a path that skipped authentication cannot skip it.
func TestEmailMagicLinkPKCERequiredByFace(t *testing.T) {
	for _, c := range []struct {
		name     string
		required bool
		ctx      func(*Project) context.Context
		want     bool
	}{
		{"sdk", true, func(p *Project) context.Context { return WithCaller(context.Background(), Caller{Project: p}) }, true},
		{"no caller", true, func(*Project) context.Context { return context.Background() }, true},
		{"backend", true, func(p *Project) context.Context {
			return WithCaller(context.Background(), Caller{Project: p, Backend: true})
		}, false},
		{"sdk, not required", false, func(p *Project) context.Context { return WithCaller(context.Background(), Caller{Project: p}) }, false},
	} {
		p := &Project{PKCERequiredForEmailMagicLinks: c.required}
		if got := EmailMagicLinkPKCERequired(c.ctx(p), p); got != c.want {
			t.Errorf("%s: required = %v, want %v", c.name, got, c.want)
		}
	}
}
