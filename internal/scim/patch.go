package scim

import (
	"fmt"
	"strconv"
	"strings"
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

func errInvalidPath(p string) error {
	return &scimError{400, "invalidPath", fmt.Sprintf("The path %q is not a valid attribute path.", p)}
}

// key finds m's key for name, case-insensitively (SCIM attribute names
// are), or returns name when m has none.
func key(m map[string]any, name string) string {
	for k := range m {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return name
}

// applyPatch applies ops to doc, a resource as a JSON object.
func applyPatch(doc map[string]any, ops []patchOp) error {
	if len(ops) == 0 {
		return errInvalidValue("A PATCH needs at least one operation.")
	}
	for _, op := range ops {
		kind := strings.ToLower(op.Op)
		switch kind {
		case "add", "replace", "remove":
		default:
			return errInvalidSyntax(fmt.Sprintf("Unknown PATCH operation %q.", op.Op))
		}
		if strings.TrimSpace(op.Path) == "" {
			if kind == "remove" {
				return &scimError{400, "noTarget", "A remove operation needs a path."}
			}
			obj, ok := op.Value.(map[string]any)
			if !ok {
				return errInvalidValue("A PATCH operation without a path needs an object value.")
			}
			for k, v := range obj {
				if err := setPath(doc, k, v, kind); err != nil {
					return err
				}
			}
			continue
		}
		var err error
		if kind == "remove" {
			err = removePath(doc, op.Path, op.Value)
		} else {
			err = setPath(doc, op.Path, op.Value, kind)
		}
		if err != nil {
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
	k := key(doc, schemaEnterprise)
	m, ok := doc[k].(map[string]any)
	if !ok {
		m = map[string]any{}
		doc[k] = m
	}
	return m
}

func setPath(doc map[string]any, path string, value any, kind string) error {
	pp, err := parsePath(path)
	if err != nil || pp.foreign {
		return err
	}
	c := container(doc, pp)
	if pp.attr == "" { // the whole extension
		obj, ok := value.(map[string]any)
		if !ok {
			return errInvalidValue("The extension's value must be an object.")
		}
		for k, v := range obj {
			c[key(c, k)] = v
		}
		return nil
	}
	k := key(c, pp.attr)
	switch {
	case pp.filtered:
		list, _ := c[k].([]any)
		hit := false
		for i, el := range list {
			m, ok := el.(map[string]any)
			if !ok || !matches(m, pp) {
				continue
			}
			hit = true
			if pp.sub != "" {
				m[key(m, pp.sub)] = value
			} else if obj, ok := value.(map[string]any); ok {
				merge(m, obj)
			} else {
				list[i] = value
			}
		}
		if !hit {
			// emails[type eq "work"].value on a user with no work email
			// adds one (how Microsoft Entra sets a first address).
			el := map[string]any{pp.filterAttr: pp.filterValue}
			if pp.sub != "" {
				el[pp.sub] = value
			} else if obj, ok := value.(map[string]any); ok {
				merge(el, obj)
			}
			list = append(list, el)
		}
		c[k] = list
	case pp.sub != "":
		m, ok := c[k].(map[string]any)
		if !ok {
			m = map[string]any{}
			c[k] = m
		}
		m[key(m, pp.sub)] = value
	default:
		old, hasOld := c[k]
		switch v := value.(type) {
		case []any:
			if prev, ok := old.([]any); ok && kind == "add" {
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

func removePath(doc map[string]any, path string, value any) error {
	pp, err := parsePath(path)
	if err != nil || pp.foreign {
		return err
	}
	c := container(doc, pp)
	if pp.attr == "" {
		delete(doc, key(doc, schemaEnterprise))
		return nil
	}
	k := key(c, pp.attr)
	switch {
	case pp.filtered:
		list, _ := c[k].([]any)
		out := list[:0]
		for _, el := range list {
			m, ok := el.(map[string]any)
			if ok && matches(m, pp) {
				if pp.sub != "" {
					delete(m, key(m, pp.sub))
					out = append(out, m)
				}
				continue
			}
			out = append(out, el)
		}
		c[k] = out
	case pp.sub != "":
		if m, ok := c[k].(map[string]any); ok {
			delete(m, key(m, pp.sub))
		}
	default:
		delete(c, k)
	}
	return nil
}

// matches reports whether a multi-valued attribute's element passes the
// path's value filter (values compared case-insensitively: types such as
// "work" are case-insensitive, and Entra spells booleans "True").
func matches(m map[string]any, pp patchPath) bool {
	switch v := m[key(m, pp.filterAttr)].(type) {
	case string:
		return strings.EqualFold(v, pp.filterValue)
	case bool:
		return strings.EqualFold(strconv.FormatBool(v), pp.filterValue)
	}
	return false
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		dst[key(dst, k)] = v
	}
}
