// Package displaytext is the one rule for a name that someone chooses and
// someone else reads: an organization or member name in an email subject,
// an SSO connection on the login screen, a connected app on the consent
// screen. Two things are refused or dropped, nothing else:
//
//   - the bidirectional formatting characters, which reorder what follows
//     them on screen (an RLO turns "Acme\u202Egnp.exe" into what reads as
//     "Acmeexe.png"), so a name can show other words than the ones it holds;
//   - a name with nothing visible in it, which counts as no name at all.
//
// Other invisible format characters stay: the zero-width joiner and
// non-joiner are part of emoji sequences and of words in Indic and Persian
// scripts, tag characters of subdivision flags, variation selectors of
// emoji. A zero-width space or soft hyphen inside an otherwise visible name
// can make it look like another name, but so can a homoglyph, and names
// here are labels, never identifiers: refusing them would protect nothing.
package displaytext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsBidiControl reports whether r is one of the explicit bidirectional
// formatting characters (Unicode's Bidi_Control property): the embeddings
// and overrides U+202A-U+202E, the isolates U+2066-U+2069, the marks
// U+200E and U+200F and the Arabic letter mark U+061C. None is needed to
// write a name in any script; the display algorithm orders mixed scripts
// on its own.
func IsBidiControl(r rune) bool {
	return unicode.Is(unicode.Bidi_Control, r)
}

// Forbidden reports whether r may not appear in a one-line name: a control
// character (a line break in a subject is a header injection, a bell or
// NUL is never meant) or a bidirectional formatting character.
func Forbidden(r rune) bool {
	return unicode.IsControl(r) || IsBidiControl(r)
}

// ForbiddenInText reports whether s, a text of several lines (a
// description), holds a character Forbidden refuses other than a line
// break or a tab: those lay out a paragraph, while an escape sequence, a
// backspace or a lone carriage return rewrites what a terminal or a log
// viewer shows. A carriage return passes only in CR LF, the line break
// some clients send.
func ForbiddenInText(s string) bool {
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return true
			}
		case Forbidden(r):
			return true
		}
	}
	return false
}

// Blank reports whether s holds no visible character: only spaces, format
// characters (zero-width space, soft hyphen, joiners), combining marks
// with nothing to combine with, or characters that render as nothing
// though classed as letters or symbols (the Hangul fillers, the blank
// Braille pattern). Such a name reads as empty and is treated as missing.
func Blank(s string) bool {
	return !strings.ContainsFunc(s, visible)
}

// visible: a letter, digit, punctuation mark or symbol that draws something.
func visible(r rune) bool {
	if !unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S) {
		return false
	}
	return r != '\u2800' && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// Clean is for a name that cannot be refused (one an identity provider
// sends, one stored before these rules): it drops the bidirectional
// formatting characters and returns "" when nothing visible is left.
// Control characters are the caller's, as each has its own use for them.
func Clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if IsBidiControl(r) {
			return -1
		}
		return r
	}, s)
	if Blank(s) {
		return ""
	}
	return s
}

// Line checks v as a one-line text someone chooses and others read (a
// member's, client's or connection's name). It returns v trimmed, "" when
// nothing in it is visible (Blank: no name), or, when v is refused, why:
// a sentence naming field, which the caller wraps in its own catalogued
// error. Refused: more than max characters (max 0: no bound), a control
// character, a bidirectional formatting character, each with its own
// sentence so the sender learns which character to remove.
func Line(field, v string, max int) (text, refusal string) {
	return check(field, v, max, false)
}

// Text is Line for a text of several lines (a description): line breaks
// and tabs stay, as ForbiddenInText allows them.
func Text(field, v string, max int) (text, refusal string) {
	return check(field, v, max, true)
}

func check(field, v string, max int, lines bool) (string, string) {
	v = strings.TrimSpace(v)
	if max > 0 && utf8.RuneCountInString(v) > max {
		return "", fmt.Sprintf("%s must be at most %d characters.", field, max)
	}
	if strings.ContainsFunc(v, IsBidiControl) {
		return "", field + " must not contain bidirectional formatting characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)."
	}
	switch {
	case lines && ForbiddenInText(v):
		return "", field + " must not contain control characters other than line breaks and tabs."
	case !lines && strings.ContainsFunc(v, unicode.IsControl):
		return "", field + " must not contain control characters."
	}
	if Blank(v) {
		return "", ""
	}
	return v, ""
}
