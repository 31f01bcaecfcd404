package scim

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// patchOp is one PATCH operation (RFC 7644 3.5.2). Identity providers
// spell op in any case ("Replace" from Microsoft Entra).
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

type patchRequest struct {
	Schemas    []string  `json:"schemas"`
	Operations []patchOp `json:"Operations"`
}

// patchPath is a parsed attribute path: attr[filterAttr eq "filterValue"].sub,
// inside the enterprise extension when ext. foreign is a path under a
// schema this server does not define (an identity provider's custom
// extension, which Entra sends when an admin maps attributes to it): it
// is ignored, as unknown attributes in a User are.
type patchPath struct {
	ext, foreign            bool
	attr, sub               string
	filterAttr, filterValue string
	filtered                bool
}

// parsePath reads a PATCH path (RFC 7644 3.5.2, 3.10): an attribute name,
// at most one sub-attribute, an optional value filter on a multi-valued
// attribute, optionally behind a schema URN. Anything else (trailing text
// after the filter, a second sub-attribute, a character no attribute name
// has) is invalidPath (3.12), never a guess at what was meant.
func parsePath(p string) (patchPath, error) {
	var out patchPath
	full := strings.TrimSpace(p)
	p, lower := full, strings.ToLower(full)
	switch {
	case strings.HasPrefix(lower, strings.ToLower(schemaEnterprise)+":"):
		out.ext, p = true, p[len(schemaEnterprise)+1:]
	case strings.EqualFold(p, schemaEnterprise):
		return patchPath{ext: true}, nil
	case strings.HasPrefix(lower, strings.ToLower(schemaUser)+":"):
		p = p[len(schemaUser)+1:]
	case strings.HasPrefix(lower, strings.ToLower(schemaGroup)+":"):
		p = p[len(schemaGroup)+1:]
	case strings.HasPrefix(lower, "urn:"):
		// Another schema's attribute: its URN ends at the last colon
		// before the attribute path (a filter's value may hold colons).
		head := p
		if i := strings.IndexByte(p, '['); i >= 0 {
			head = p[:i]
		}
		k := strings.LastIndexByte(head, ':')
		if k < 0 {
			return out, errInvalidPath(full)
		}
		out.foreign, p = true, p[k+1:]
	}
	if i := strings.IndexByte(p, '['); i >= 0 {
		j := strings.LastIndexByte(p, ']')
		if j < i {
			return out, errInvalidPath(full)
		}
		// A PATCH path's value filter is the one comparison identity
		// providers send there: attribute eq "value".
		f, err := parseFilter(p[i+1 : j])
		if err != nil || f == nil || f.kind != nodeCmp || f.op != "eq" || f.path.urn != "" || f.path.sub != "" {
			return out, errInvalidPath(full)
		}
		// Entra picks a value by its flag too: roles[primary eq "True"].
		var v string
		switch x := f.value.v.(type) {
		case string:
			v = x
		case bool:
			v = strconv.FormatBool(x)
		default:
			return out, errInvalidPath(full)
		}
		out.filtered, out.filterAttr, out.filterValue = true, f.path.attr, v
		out.attr = p[:i]
		if rest := p[j+1:]; rest != "" {
			sub, ok := strings.CutPrefix(rest, ".")
			if !ok || !attrName(sub) {
				return out, errInvalidPath(full)
			}
			out.sub = sub
		}
	} else {
		var dot bool
		out.attr, out.sub, dot = strings.Cut(p, ".")
		if dot && !attrName(out.sub) {
			return out, errInvalidPath(full)
		}
	}
	if !attrName(out.attr) {
		return out, errInvalidPath(full)
	}
	return out, nil
}

// errNoTarget refuses a remove without a path (RFC 7644 3.5.2.2).
func errNoTarget() error { return &scimError{400, "noTarget", "A remove operation needs a path."} }

func errInvalidPath(p string) error {
	return &scimError{400, "invalidPath", fmt.Sprintf("The path %q is not a valid attribute path.", p)}
}

// Bounds on a User PATCH. The body limit bounds a request's bytes, not
// the work it asks for: each operation, and each key of a path-less
// operation's object, is a path applied to the document, and a value
// filter scans the list it names. Identity providers send a handful of
// operations (Entra one per changed attribute, Okta a path-less replace);
// RFC 7644 sets no bound, so these are generous. They hold for a
// deprovisioning push too, which bound (values.go) otherwise never
// refuses: a push over them is no identity provider's.
const (
	maxPatchOps  = 100 // operations of one PATCH
	maxPatchKeys = 100 // keys of one object in an operation's value
	// maxPatchValues bounds a list in an operation's value and a
	// multi-valued attribute as the operations grow it. It is well over
	// maxValues, which bound applies to the result (keeping the stored
	// values when a deprovisioning push exceeds it).
	maxPatchValues = 1000
)

// patchStep is one attribute change of a PATCH, read and checked before
// any document is: an operation with a path, or one key of a path-less
// operation's object.
type patchStep struct {
	kind  string // add, replace or remove
	pp    patchPath
	value any // as decoded; copied, its keys folded, each time it is applied
}

// compilePatch checks a PATCH's operations without the resource: their
// number and the size of their values, the operation names and the paths.
// It needs no transaction, and its steps can be applied to any document
// (applyPatch), again if the resource changed meanwhile.
func compilePatch(ops []patchOp) ([]patchStep, error) {
	if len(ops) == 0 {
		return nil, errInvalidValue("A PATCH needs at least one operation.")
	}
	if len(ops) > maxPatchOps {
		return nil, errInvalidValue(fmt.Sprintf("A PATCH may hold at most %d operations.", maxPatchOps))
	}
	var steps []patchStep
	add := func(kind, path string, value any) error {
		pp, err := parsePath(path)
		if err != nil {
			return err
		}
		if pp.foreign {
			return nil // another schema's attribute: ignored
		}
		if kind != "remove" {
			if _, ok := value.(map[string]any); pp.attr == "" && !ok {
				return errInvalidValue("The extension's value must be an object.")
			}
			if err := valueFits(value); err != nil {
				return err
			}
		}
		steps = append(steps, patchStep{kind: kind, pp: pp, value: value})
		return nil
	}
	for _, op := range ops {
		kind := strings.ToLower(op.Op)
		switch kind {
		case "add", "replace", "remove":
		default:
			return nil, errInvalidSyntax(fmt.Sprintf("Unknown PATCH operation %q.", op.Op))
		}
		if strings.TrimSpace(op.Path) != "" {
			if err := add(kind, op.Path, op.Value); err != nil {
				return nil, err
			}
			continue
		}
		if kind == "remove" {
			return nil, errNoTarget()
		}
		obj, ok := op.Value.(map[string]any)
		if !ok {
			return nil, errInvalidValue("A PATCH operation without a path needs an object value.")
		}
		if len(obj) > maxPatchKeys {
			return nil, errTooManyKeys()
		}
		// In key order, so a push that names one attribute twice (in two
		// spellings) always ends the same way.
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := add(kind, k, obj[k]); err != nil {
				return nil, err
			}
		}
	}
	return steps, nil
}

func errTooManyKeys() error {
	return errInvalidValue(fmt.Sprintf("An object in a PATCH may hold at most %d attributes.", maxPatchKeys))
}

func errTooManyValues() error {
	return errInvalidValue(fmt.Sprintf("A multi-valued attribute in a PATCH may hold at most %d values.", maxPatchValues))
}

// valueFits refuses a value holding an object over maxPatchKeys keys or a
// list over maxPatchValues elements, at any depth.
func valueFits(v any) error {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > maxPatchKeys {
			return errTooManyKeys()
		}
		for _, e := range x {
			if err := valueFits(e); err != nil {
				return err
			}
		}
	case []any:
		if len(x) > maxPatchValues {
			return errTooManyValues()
		}
		for _, e := range x {
			if err := valueFits(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// foldKey is the form of an attribute name that a document being patched
// is keyed by: names that strings.EqualFold (and encoding/json, which
// reads the result) take for one map to one key. Every object in the
// document has its keys folded (foldKeys), so finding an attribute is one
// map lookup; a search of the object's keys for each name made a PATCH
// of many keys quadratic.
func foldKey(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		// The smallest rune of r's case-folding orbit stands for all of
		// them (K for the Kelvin sign, s for the long s), then lower case
		// as for ASCII.
		for {
			next := unicode.SimpleFold(r)
			if next <= r {
				r = next
				break
			}
			r = next
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// foldKeys is a deep copy of a decoded JSON value with every object's
// keys folded (foldKey). Keys that fold alike keep one value, as SCIM
// attribute names are one name in any case.
func foldKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[foldKey(k)] = foldKeys(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = foldKeys(e)
		}
		return out
	}
	return v
}

// applyPatch applies steps (compilePatch) to doc, a resource as a JSON
// object whose keys are folded (foldKeys). The steps are not changed, so
// they may be applied to another document.
func applyPatch(doc map[string]any, steps []patchStep) error {
	for _, st := range steps {
		if st.kind == "remove" {
			removePath(doc, st.pp)
			continue
		}
		if err := setPath(doc, st.pp, foldKeys(st.value), st.kind); err != nil {
			return err
		}
	}
	return nil
}

// container is the object a path's attribute lives in: doc, or the
// enterprise extension inside it.
func container(doc map[string]any, pp patchPath) map[string]any {
	if !pp.ext {
		return doc
	}
	k := foldKey(schemaEnterprise)
	m, ok := doc[k].(map[string]any)
	if !ok {
		m = map[string]any{}
		doc[k] = m
	}
	return m
}

func setPath(doc map[string]any, pp patchPath, value any, kind string) error {
	c := container(doc, pp)
	if pp.attr == "" { // the whole extension (an object: compilePatch)
		merge(c, value.(map[string]any))
		return nil
	}
	k := foldKey(pp.attr)
	switch {
	case pp.filtered:
		list, _ := c[k].([]any)
		hit := false
		var set []any // the values this step wrote
		for i, el := range list {
			m, ok := el.(map[string]any)
			if !ok || !matches(m, pp) {
				continue
			}
			hit = true
			if pp.sub != "" {
				m[foldKey(pp.sub)] = value
			} else if obj, ok := value.(map[string]any); ok {
				merge(m, obj)
			} else {
				list[i] = value
			}
			set = append(set, list[i])
		}
		if !hit {
			// emails[type eq "work"].value on a user with no work email
			// adds one (how Microsoft Entra sets a first address).
			el := map[string]any{foldKey(pp.filterAttr): pp.filterValue}
			if pp.sub != "" {
				el[foldKey(pp.sub)] = value
			} else if obj, ok := value.(map[string]any); ok {
				merge(el, obj)
			}
			if list = append(list, el); len(list) > maxPatchValues {
				return errTooManyValues()
			}
			set = append(set, el)
		}
		demoteOthers(list, set)
		c[k] = list
	case pp.sub != "":
		m, ok := c[k].(map[string]any)
		if !ok {
			m = map[string]any{}
			c[k] = m
		}
		m[foldKey(pp.sub)] = value
	default:
		old, hasOld := c[k]
		switch v := value.(type) {
		case []any:
			if kind == "add" {
				// A value the attribute holds already is not added again
				// (RFC 7644 3.5.2.1): identity providers repeat theirs
				// (Entra's Add of a user's app roles), and each copy
				// would count toward the attribute's bound. Nor is one
				// the add names twice. The same value is the same value
				// whatever its primary flag or display (sameKey): adding
				// {value: b, primary: true} to a list holding {value: b}
				// kept both, a second b. The add's sub-attributes are set
				// on the value it repeats instead (what the add says is
				// all it changes), and a primary it sets there demotes the
				// others as a new value's does.
				// By a map of their keys: a search of the list for each
				// value would make an add of many values quadratic.
				prev, _ := old.([]any) // none held when absent
				held := make(map[string]any, len(prev)+len(v))
				for _, p := range prev {
					held[sameKey(p)] = p
				}
				var repeated []any // held values the add set sub-attributes on
				v = slices.DeleteFunc(slices.Clone(v), func(el any) bool {
					k := sameKey(el)
					same, ok := held[k]
					if !ok {
						held[k] = el
						return false
					}
					if dst, ok := same.(map[string]any); ok {
						if src, ok := el.(map[string]any); ok {
							merge(dst, src)
							repeated = append(repeated, dst)
						}
					}
					return true
				})
				if len(prev)+len(v) > maxPatchValues {
					return errTooManyValues()
				}
				demoteOthers(prev, append(repeated, v...))
				value = append(prev, v...)
			}
		case map[string]any:
			if prev, ok := old.(map[string]any); ok && hasOld {
				merge(prev, v)
				value = prev
			}
		}
		c[k] = value
	}
	return nil
}

func removePath(doc map[string]any, pp patchPath) {
	c := container(doc, pp)
	if pp.attr == "" {
		delete(doc, foldKey(schemaEnterprise))
		return
	}
	k := foldKey(pp.attr)
	switch {
	case pp.filtered:
		list, _ := c[k].([]any)
		out := list[:0]
		for _, el := range list {
			m, ok := el.(map[string]any)
			if ok && matches(m, pp) {
				if pp.sub != "" {
					delete(m, foldKey(pp.sub))
					out = append(out, m)
				}
				continue
			}
			out = append(out, el)
		}
		c[k] = out
	case pp.sub != "":
		if m, ok := c[k].(map[string]any); ok {
			delete(m, foldKey(pp.sub))
		}
	default:
		delete(c, k)
	}
}

// matches reports whether a multi-valued attribute's element passes the
// path's value filter (values compared case-insensitively: types such as
// "work" are case-insensitive, and Entra spells booleans "True").
func matches(m map[string]any, pp patchPath) bool {
	switch v := m[foldKey(pp.filterAttr)].(type) {
	case string:
		return strings.EqualFold(v, pp.filterValue)
	case bool:
		return strings.EqualFold(strconv.FormatBool(v), pp.filterValue)
	}
	return false
}

// demoteOthers keeps primary to the values a step wrote: when one of set
// is primary, every other value of list that was is no longer (RFC 7644
// 3.5.2: a PATCH that sets a value's primary to true makes the server set
// it false for the others; RFC 7643 2.4: one primary value at most).
// Without it the value that was primary before stayed so, and a user's
// address, taken from the first primary email, ignored the new one.
// primary may be a string ("True"), as Microsoft Entra spells booleans.
func demoteOthers(list, set []any) {
	isPrimary := func(v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		b, _ := boolValue(m[foldKey("primary")])
		return b
	}
	if !slices.ContainsFunc(set, isPrimary) {
		return
	}
	for _, el := range list {
		if isPrimary(el) && !slices.ContainsFunc(set, func(v any) bool { return sameValue(v, el) }) {
			el.(map[string]any)[foldKey("primary")] = false
		}
	}
}

// sameValue reports whether a and b are the same element of a list (the
// same map, not an equal one).
func sameValue(a, b any) bool {
	ma, ok := a.(map[string]any)
	mb, ok2 := b.(map[string]any)
	return ok && ok2 && reflect.ValueOf(ma).UnsafePointer() == reflect.ValueOf(mb).UnsafePointer()
}

// sameKey is a value of a multi-valued attribute (keys folded) in the
// form that tells values apart: its sub-attributes but primary and
// display (a flag and a label of the value, not part of it: an email is
// its address and type, a role its value and type, an address its
// fields), an empty string being an absent one. Two values with the
// same key are the same value.
func sameKey(v any) string {
	if m, ok := v.(map[string]any); ok {
		norm := make(map[string]any, len(m))
		for k, x := range m {
			if k == foldKey("primary") || k == foldKey("display") {
				continue
			}
			if x != nil && x != "" {
				norm[k] = x
			}
		}
		v = norm
	}
	b, err := json.Marshal(v) // map keys in order: one text per value
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// merge sets src's keys in dst; both have their keys folded.
func merge(dst, src map[string]any) {
	for k, v := range src {
		dst[k] = v
	}
}
