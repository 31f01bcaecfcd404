package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/latchkey/latchkey/internal/project"
)

// usageError is a mistake in how a command was called (an unknown flag or
// subcommand, a missing required flag, a stray word): Run prints it with a
// pointer to the command's --help and exits 2, where a failure of the work
// itself exits 1.
type usageError struct {
	cmd string // "project create"; "" for the top level
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usageErrorf(cmd, format string, a ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, a...)}
}

// helpRequested carries a command's usage to Run, which prints it on
// stdout and exits 0.
type helpRequested struct{ text string }

func (h *helpRequested) Error() string { return "help requested" }

// isHelp reports whether a word in a subcommand's place asks for help.
func isHelp(word string) bool {
	switch word {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// subcommand returns env.Args[i], the subcommand of the command named cmd,
// or the error to return: a usage error naming the choices when it is
// missing, help when it asks for help.
func subcommand(env Env, i int, cmd, choices string) (string, error) {
	if len(env.Args) <= i {
		return "", usageErrorf(cmd, "missing subcommand: %s", choices)
	}
	if isHelp(env.Args[i]) {
		return "", &helpRequested{text: commandUsage(cmd)}
	}
	return env.Args[i], nil
}

// unknownSubcommand is the usage error for a subcommand cmd does not have.
func unknownSubcommand(cmd, sub, choices string) error {
	return usageErrorf(cmd, "unknown subcommand %q (one of: %s)", sub, choices)
}

// newFlags returns the flag set of the command named, e.g. "project
// create". Each subcommand gets its own, holding only its own flags, so a
// flag meant for another is refused rather than ignored.
func newFlags(name string) *flag.FlagSet {
	return flag.NewFlagSet(name, flag.ContinueOnError)
}

// parseFlags parses args into fs. The flag package stops at the first word
// that is not a flag and leaves the rest unread, so a value with an
// unquoted space (--name My Shop --origin …) would silently drop every flag
// after it: any leftover word is refused. --help is answered with the
// command's usage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard) // errors go through Run, help to stdout
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		var b strings.Builder
		b.WriteString(commandUsage(fs.Name()))
		fs.SetOutput(&b)
		b.WriteString("\nFlags:\n")
		fs.PrintDefaults()
		return &helpRequested{text: b.String()}
	case err != nil:
		// The flag package's error quotes the word it stopped at: the one
		// it took last, or (bad syntax) the one after. After a secret's
		// value that word may be the secret's second half.
		for _, k := range []int{len(args) - fs.NArg() - 1, len(args) - fs.NArg()} {
			if name, ok := afterSecret(args, k); ok {
				return usageErrorf(fs.Name(), "unexpected flag after the value of %s (not shown: it may be part of the secret; "+
					"nothing after it was read; quote a value that contains spaces)", name)
			}
		}
		return usageErrorf(fs.Name(), "%v", err)
	case fs.NArg() > 0:
		return strayArgument(fs.Name(), args, len(args)-fs.NArg())
	}
	return nil
}

// strayArgument explains the leftover word args[i], suggesting the quoted
// value when it most likely continues the value before it.
func strayArgument(cmd string, args []string, i int) error {
	isFlag := isFlagWord
	hint := "quote a value that contains spaces"
	if name, ok := afterSecret(args, i); ok {
		return usageErrorf(cmd, "unexpected argument after the value of %s (not shown: it may be part of the secret; nothing after it was read; %s)", name, hint)
	}
	switch {
	case i >= 2 && isFlag(args[i-2]) && !strings.Contains(args[i-2], "=") && !isFlag(args[i-1]):
		hint += fmt.Sprintf(`: %s "%s %s"`, args[i-2], args[i-1], args[i])
	case i >= 1 && isFlag(args[i-1]) && strings.Contains(args[i-1], "="):
		name, value, _ := strings.Cut(args[i-1], "=")
		hint += fmt.Sprintf(`: %s="%s %s"`, name, value, args[i])
	}
	return usageErrorf(cmd, "unexpected argument %q (nothing after it was read; %s)", args[i], hint)
}

// afterSecret reports whether args[i] comes right after a secret flag's
// value, and names that flag. Such a word may be the secret's own second
// half: it is not echoed, since stderr ends up in terminals' scrollback
// and CI logs. The value is in the flag's word (--client-secret=v) or is
// the next word whatever it starts with: the flag package takes a "-x"
// after a string flag as its value, and a secret may begin with "-".
func afterSecret(args []string, i int) (string, bool) {
	if i < 0 || i >= len(args) {
		return "", false
	}
	for _, j := range []int{i - 1, i - 2} {
		if j < 0 {
			continue
		}
		valueBetween := j == i-2
		if isFlagWord(args[j]) && secretFlag(args[j]) && valueBetween != strings.Contains(args[j], "=") {
			name, _, _ := strings.Cut(args[j], "=")
			return name, true
		}
	}
	return "", false
}

// isFlagWord reports whether s is written as a flag ("--" ends the flags).
func isFlagWord(s string) bool { return len(s) > 1 && s[0] == '-' && s != "--" }

// secretFlag reports whether flag (as typed, with or without "=value")
// carries a secret, e.g. --client-secret (not --secret-id, which names one).
func secretFlag(flag string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(flag, "-"), "=")
	return strings.HasSuffix(name, "secret") || strings.HasSuffix(name, "password")
}

// commandUsage returns the lines of the top-level usage that describe cmd
// ("project" gives every project subcommand), or all of it when none does.
func commandUsage(cmd string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(usage) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" && b.Len() > 0 {
			break
		}
		if strings.HasPrefix(trimmed, "latchkey ") {
			in = strings.HasPrefix(trimmed+" ", "latchkey "+cmd+" ")
		} else if !strings.HasPrefix(line, " ") {
			in = false // a heading, not a continuation line
		}
		if in {
			b.WriteString(line)
		}
	}
	if b.Len() == 0 {
		return usage
	}
	return "Usage:\n" + b.String()
}

// required is the usage error for missing required flags, or nil.
func required(cmd string, missing bool, flags string) error {
	if missing {
		return usageErrorf(cmd, "%s required", flags)
	}
	return nil
}

// requiredWithProject refuses a missing --project and, when the
// subcommand has the flag (value not nil), a missing --name.
func requiredWithProject(cmd, id, name string, value *string) error {
	if value == nil {
		return required(cmd, id == "", "--project is")
	}
	return required(cmd, id == "" || *value == "", "--project and --"+name+" are")
}

// requireProject loads the project a command names with --project, so that
// every command says the same thing, before doing anything, when it does
// not exist.
func requireProject(ctx context.Context, projects *project.Store, id string) (*project.Project, error) {
	p, err := projects.ByID(ctx, id)
	if project.IsNotFound(err) {
		return nil, fmt.Errorf("project %q not found", id)
	}
	return p, err
}

// newEncoder returns the CLI's JSON encoder. HTML escaping is off: output
// is read and pasted by people (a login URL with \u0026 for & cannot be
// opened), never embedded in a page.
func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// encodeLines prints one JSON object per line, the CLI's listing format.
func encodeLines[T any](env Env, items []T) error {
	enc := newEncoder(env.Stdout)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// readSecretLine reads one line from r (stdin) without its line ending,
// returning at the newline so that a secret typed at a terminal needs no
// end-of-file.
func readSecretLine(r io.Reader) (string, error) {
	if r == nil {
		return "", nil
	}
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
