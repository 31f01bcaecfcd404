package sso

import (
	"bytes"
	"compress/flate"
	"crypto/tls"
	"encoding/base64"
	"encoding/xml"
	"io"

	"github.com/beevik/etree"
	"github.com/russellhaering/gosaml2/types"
	dsig "github.com/russellhaering/goxmldsig"
	"github.com/russellhaering/goxmldsig/etreeutils"

	"github.com/latchkey/latchkey/internal/apierr"
)

// goxmldsig verifies whatever algorithm a signature names, SHA-1 included
// (x509's CheckSignature accepts SHA-1 for XML signatures, unlike for
// certificates), and has no allowlist. A SHA-1 digest or signature can be
// forged by collision at a cost within reach, so these are the only
// algorithms a SAML signature may use here: RSA and ECDSA with SHA-2.
var signatureMethods = map[string]bool{
	dsig.RSASHA256SignatureMethod: true, dsig.RSASHA384SignatureMethod: true, dsig.RSASHA512SignatureMethod: true,
	dsig.ECDSASHA256SignatureMethod: true, dsig.ECDSASHA384SignatureMethod: true, dsig.ECDSASHA512SignatureMethod: true,
}

var digestMethods = map[string]bool{
	"http://www.w3.org/2001/04/xmlenc#sha256":       true,
	"http://www.w3.org/2001/04/xmldsig-more#sha384": true,
	"http://www.w3.org/2001/04/xmlenc#sha512":       true,
}

// dsigNS is the XML Signature namespace, and assertionNS SAML's assertion
// namespace.
const (
	dsigNS      = "http://www.w3.org/2000/09/xmldsig#"
	assertionNS = "urn:oasis:names:tc:SAML:2.0:assertion"
)

// errAssertionCount is verifySAML's refusal of a response that does not
// carry exactly one assertion.
func errAssertionCount() error {
	return apierr.New(apierr.InvalidSAMLResponse).WithMessage("The SAML response must carry exactly one assertion.")
}

// maxInflated bounds a deflated response as gosaml2 does (5 MiB), since
// the check reads what gosaml2 will.
const maxInflated = 5 << 20

// maxXMLTokens matches gosaml2's MaximumXMLTokens default (its
// defaultMaxXMLTokens, unexported; serviceProvider leaves the field
// zero): gosaml2 refuses a document that may hold more tokens than this
// before parsing it, so neither does the check parse one. This check runs
// before anything authenticates the request, and a few kilobytes of
// deflated input can otherwise inflate to a million elements.
const maxXMLTokens = 50000

// checkAlgorithms refuses, before gosaml2 runs, a response whose root
// does not hold exactly one Assertion or EncryptedAssertion: verifySAML
// refuses it after gosaml2 anyway, but gosaml2 RSA-decrypts every
// EncryptedAssertion of an unsigned response before it checks any
// signature, so a forged post of a few kilobytes asked for hundreds of
// decryptions. It also refuses, before gosaml2 verifies any signature, a
// response whose XML signatures use an algorithm outside the allowlists:
// the response's, its assertions', and those of its encrypted assertions,
// which are decrypted here for the purpose with the connection's keys
// (newest first, as validateResponse tries them). What this check cannot
// read (not base64, not XML nor deflated XML, a document over gosaml2's
// token bound, an assertion no key decrypts) is left to gosaml2, which
// reads it the same way and refuses it.
func (s *Service) checkAlgorithms(encoded string, keys []storedKey) error {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil
	}
	root := readXML(raw)
	if err := checkSignatures(root); err != nil {
		return err
	}
	if root != nil && assertionChildren(root) != 1 {
		return errAssertionCount()
	}
	var encrypted []*etree.Element
	if root != nil {
		err = etreeutils.NSFindIterate(root, assertionNS, "EncryptedAssertion",
			func(ctx etreeutils.NSContext, el *etree.Element) error {
				detached, err := etreeutils.NSDetatch(ctx, el)
				if err == nil {
					encrypted = append(encrypted, detached)
				}
				return nil
			})
		if err != nil {
			return nil
		}
	}
	if len(encrypted) != 1 {
		// Encrypted assertions nested deeper than the root's children
		// (gosaml2 refuses those before decrypting them): no reason to
		// decrypt them all here first, each with every key.
		return nil
	}
	for _, el := range encrypted {
		plain, err := s.decryptForCheck(el, keys)
		if err != nil {
			return err
		}
		if err := checkSignatures(readXML(plain)); err != nil {
			return err
		}
	}
	return nil
}

// assertionChildren counts root's Assertion and EncryptedAssertion
// children in the assertion namespace: the ones gosaml2 verifies and
// decrypts (it refuses any deeper before decrypting it).
func assertionChildren(root *etree.Element) int {
	n := 0
	for _, c := range root.ChildElements() {
		if (c.Tag == "Assertion" || c.Tag == "EncryptedAssertion") && c.NamespaceURI() == assertionNS {
			n++
		}
	}
	return n
}

// decryptForCheck decrypts an encrypted assertion with the first of keys
// (newest first) that opens it, or returns nil when none does.
func (s *Service) decryptForCheck(el *etree.Element, keys []storedKey) ([]byte, error) {
	doc := etree.NewDocument()
	doc.SetRoot(el)
	text, err := doc.WriteToBytes()
	if err != nil {
		return nil, nil
	}
	var ea types.EncryptedAssertion
	if xml.Unmarshal(text, &ea) != nil {
		return nil, nil
	}
	for i := len(keys) - 1; i >= 0; i-- {
		key, cert, err := s.openKey(keys[i])
		if err != nil {
			return nil, err
		}
		if plain, err := ea.DecryptBytes(&tls.Certificate{Certificate: [][]byte{cert}, PrivateKey: key}); err == nil {
			return plain, nil
		}
	}
	return nil, nil
}

// readXML reads raw as XML, else as deflated XML (as gosaml2 does, up to
// the same size and the same token bound), and returns its root, or nil.
func readXML(raw []byte) *etree.Element {
	if raw == nil {
		return nil
	}
	if doc, ok := parseBounded(raw); ok {
		return doc.Root()
	}
	inflated, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), maxInflated+1))
	if err != nil || len(inflated) > maxInflated {
		return nil
	}
	doc, ok := parseBounded(inflated)
	if !ok {
		return nil
	}
	return doc.Root()
}

// parseBounded parses b as XML unless it may hold more than maxXMLTokens
// tokens, bounded as gosaml2 bounds them (every token but character data
// starts with '<', and character data lies between two of them), which
// counts without building anything. ok is false when b is not parsed or
// is not XML; gosaml2 then refuses it too.
func parseBounded(b []byte) (doc *etree.Document, ok bool) {
	if 3*int64(bytes.Count(b, []byte("<")))+1 > maxXMLTokens {
		return nil, false
	}
	doc = etree.NewDocument()
	if doc.ReadFromBytes(b) != nil {
		return nil, false
	}
	return doc, true
}

// checkSignatures checks every XML signature at or under el: its
// SignedInfo's SignatureMethod and each Reference's DigestMethod. Only
// ds:Signature elements are read, so the DigestMethod of an
// xenc:EncryptionMethod (RSA-OAEP's, often SHA-1, which is no signature)
// is not taken for one.
func checkSignatures(el *etree.Element) error {
	if el == nil {
		return nil
	}
	if el.Tag == "Signature" && el.NamespaceURI() == dsigNS {
		return checkSignature(el)
	}
	for _, c := range el.ChildElements() {
		if err := checkSignatures(c); err != nil {
			return err
		}
	}
	return nil
}

func checkSignature(sig *etree.Element) error {
	for _, si := range sig.ChildElements() {
		if si.Tag != "SignedInfo" {
			continue
		}
		for _, c := range si.ChildElements() {
			switch c.Tag {
			case "SignatureMethod":
				if alg := c.SelectAttrValue("Algorithm", ""); !signatureMethods[alg] {
					return refusedAlgorithm("signature algorithm", alg)
				}
			case "Reference":
				for _, d := range c.ChildElements() {
					if alg := d.SelectAttrValue("Algorithm", ""); d.Tag == "DigestMethod" && !digestMethods[alg] {
						return refusedAlgorithm("digest algorithm", alg)
					}
				}
			}
		}
	}
	return nil
}

func refusedAlgorithm(what, alg string) error {
	if alg == "" {
		alg = "(none)"
	}
	return apierr.New(apierr.InvalidSignatureSAMLResponse).WithMessage("The SAML response's XML signature uses the " + what +
		" " + alg + ", which this server does not accept: the identity provider must sign with RSA or ECDSA and SHA-256, SHA-384 or SHA-512.")
}
