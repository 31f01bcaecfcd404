package locale

import "context"

type ctxKey struct{}

// NewContext returns ctx carrying t, the language of the request it
// serves. Only what a request sends without naming it in its own
// parameters reads it: the SMS code a login sends by itself when the
// organization wants MFA, deep in the login's completion.
func NewContext(ctx context.Context, t Tag) context.Context {
	return context.WithValue(ctx, ctxKey{}, t)
}

// From is the language NewContext put in ctx, or English.
func From(ctx context.Context) Tag {
	t, _ := ctx.Value(ctxKey{}).(Tag)
	return t.Or()
}
