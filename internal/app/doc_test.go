// The tests of this package are the cross-cutting HTTP tests: hostile
// input on every route, the wire shapes, query plans, races and limits
// that span methods, what a member's deletion ends across methods, and
// the project's product switches. They run on apptest's server, as the
// tests beside each method's package do.
package app_test
