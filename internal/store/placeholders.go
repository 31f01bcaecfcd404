package store

import (
	"strconv"
	"strings"
)

// Placeholders returns "$from, ..., $(from+n-1)", the numbered parameters
// of a VALUES row or an IN list, in both dialects' spelling.
func Placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(from + i))
	}
	return b.String()
}

// likeEscaper escapes LIKE's wildcards and its escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// LikeEscape makes s match itself literally in a LIKE pattern written
// with ESCAPE '\' (both engines): '%' and '_' in addresses, domains and
// tenant ids are characters, not wildcards.
func LikeEscape(s string) string { return likeEscaper.Replace(s) }
