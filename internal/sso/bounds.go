package sso

import (
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Bounds of the text an administrator sets on a connection, on either
// face, or that is read for them from the identity provider's metadata:
// each value is stored in the connection's row and read into caches and
// by every login through it, and the request body (1 MiB) or the metadata
// fetch (1 MB) would otherwise be its only limit. Real values are far
// shorter; the bounds only refuse mistakes and abuse. display_name has
// its own, in characters (MaxDisplayName).
const (
	// MaxURLBytes bounds a URL (idp_sso_url, alternative_acs_url,
	// alternative_audience_uri, the OIDC issuer and endpoints,
	// metadata_url) and custom_scopes, which travel in the authorization
	// URL: 2048 bytes, what browsers and servers have long accepted.
	MaxURLBytes = 2048
	// MaxIDBytes bounds an identifier or a secret: idp_entity_id,
	// nameid_format, client_id, client_secret, an attribute_mapping key
	// or value, a group of a group role assignment, an external
	// connection's source ids.
	MaxIDBytes = 1024
	// MaxPEMBytes bounds a certificate or private key as sent: an RSA
	// 8192-bit private key is about 6.5 KiB of PEM.
	MaxPEMBytes = 16 << 10
	// MaxAttributeMappings bounds attribute_mapping's entries: a login
	// reads five (email, first_name, last_name, name, groups).
	MaxAttributeMappings = 64
)

// bounded is one optional text field of an update and its bound.
type bounded struct {
	name string
	v    *string
	max  int
}

// checkTrimmed refuses the first of fields that is set and, trimmed as
// it is stored, longer than its bound.
func checkTrimmed(fields ...bounded) error {
	for _, f := range fields {
		if f.v == nil {
			continue
		}
		if err := checkLength(f.name, strings.TrimSpace(*f.v), f.max); err != nil {
			return err
		}
	}
	return nil
}

// checkLength refuses v, the value of field, when it is longer than max
// bytes (invalid_request naming the field).
func checkLength(field, v string, max int) error {
	if len(v) > max {
		return apierr.Invalid(field, fmt.Sprintf("%s must be at most %d bytes.", field, max))
	}
	return nil
}

// checkAttributeMapping refuses an attribute_mapping with more than
// MaxAttributeMappings entries, a key or value over MaxIDBytes, or a
// value that is not a string: what names the attribute the value names
// ("an attribute", "a claim").
func checkAttributeMapping(m map[string]any, what string) error {
	const field = "attribute_mapping"
	if len(m) > MaxAttributeMappings {
		return apierr.Invalid(field, fmt.Sprintf("%s may have at most %d entries.", field, MaxAttributeMappings))
	}
	for k, v := range m {
		s, ok := v.(string)
		// The key bounded before it is quoted in a message.
		if len(k) > MaxIDBytes || ok && len(s) > MaxIDBytes {
			return apierr.Invalid(field, fmt.Sprintf("%s keys and values must be at most %d bytes.", field, MaxIDBytes))
		}
		if !ok {
			return apierr.Invalid(field, fmt.Sprintf("%s.%s must name %s (a string).", field, k, what))
		}
	}
	return nil
}

// tooLongInMetadata is the refusal of metadata whose value of what (an
// element's attribute or text) is longer than max bytes.
func tooLongInMetadata(what string, max int) error {
	return apierr.New(apierr.InvalidXMLFromSAMLMetadataURL).WithMessage(
		fmt.Sprintf("The metadata's %s is longer than %d bytes.", what, max))
}
