package sso

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The encodings identity provider metadata is read in: UTF-8, which
// encoding/xml reads itself; UTF-16, which XML 1.0 (section 4.3.3)
// requires every processor to read and which Windows tools save files
// in (a UTF-16 document begins with its byte order mark, and encoding/xml
// cannot read even its declaration, so it is converted to UTF-8 before
// any decoder sees it); and the single-byte encodings metadata files are
// commonly declared in. Each of those maps every byte to one character,
// so a document cannot grow while it is converted. Labels are the IANA
// names and aliases, compared in lower case.
var metadataCharsets = map[string]encoding.Encoding{
	"iso-8859-1": charmap.ISO8859_1, "iso_8859-1": charmap.ISO8859_1, "iso_8859-1:1987": charmap.ISO8859_1,
	"iso8859-1": charmap.ISO8859_1, "latin1": charmap.ISO8859_1, "l1": charmap.ISO8859_1, "iso-ir-100": charmap.ISO8859_1,
	"ibm819": charmap.ISO8859_1, "cp819": charmap.ISO8859_1, "csisolatin1": charmap.ISO8859_1,
	"windows-1252": charmap.Windows1252, "cp1252": charmap.Windows1252, "x-cp1252": charmap.Windows1252,
	"cswindows1252": charmap.Windows1252,
	// US-ASCII is UTF-8's first 128 characters: read as UTF-8, so a
	// byte outside it is refused as invalid UTF-8 rather than guessed at.
	"us-ascii": encoding.Nop, "ascii": encoding.Nop, "us": encoding.Nop, "iso646-us": encoding.Nop,
	"ansi_x3.4-1968": encoding.Nop, "ansi_x3.4-1986": encoding.Nop, "iso_646.irv:1991": encoding.Nop,
	"iso-ir-6": encoding.Nop, "ibm367": encoding.Nop, "cp367": encoding.Nop, "csascii": encoding.Nop,
}

// utf16Labels are the labels of UTF-16, read only in a document that
// begins with a UTF-16 byte order mark.
var utf16Labels = []string{"utf-16", "utf-16le", "utf-16be", "csutf16", "csutf16le", "csutf16be"}

// metadataDoc is an identity provider's metadata body ready for
// encoding/xml. Every decoder that reads the body is made by decoder, so
// all of them read the same characters.
type metadataDoc struct {
	text []byte
	// bom is the encoding the body's byte order mark named ("UTF-16",
	// "UTF-8"), "" when it had none.
	bom string
	// declEnd is the offset in text where a leading XML declaration
	// ends, -1 when text does not begin with one: only that declaration
	// may name the encoding.
	declEnd int64
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF16LE = []byte{0xFF, 0xFE}
)

// newMetadataDoc reads body's byte order mark, converting a UTF-16 body to
// UTF-8.
func newMetadataDoc(body []byte) (*metadataDoc, error) {
	d := &metadataDoc{text: body, declEnd: -1}
	switch {
	case bytes.HasPrefix(body, bomUTF8):
		d.bom = "UTF-8"
	case bytes.HasPrefix(body, bomUTF16BE), bytes.HasPrefix(body, bomUTF16LE):
		text, err := unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Bytes(body)
		if err != nil {
			return nil, apierr.Wrap(apierr.InvalidXMLFromSAMLMetadataURL, fmt.Errorf("UTF-16: %w", err))
		}
		d.text, d.bom = text, "UTF-16"
	}
	// encoding/xml reads a UTF-8 byte order mark as text before the
	// declaration, so the declaration begins after it.
	start := 0
	if d.bom != "" && bytes.HasPrefix(d.text, bomUTF8) {
		start = len(bomUTF8)
	}
	if rest := d.text[start:]; len(rest) > 5 && bytes.HasPrefix(rest, []byte("<?xml")) && strings.ContainsRune(" \t\r\n", rune(rest[5])) {
		if end := bytes.Index(rest, []byte("?>")); end >= 0 {
			d.declEnd = int64(start + end + 2)
		}
	}
	return d, nil
}

// decoder is a strict encoding/xml decoder of the document that reads the
// encodings of metadataCharsets.
func (d *metadataDoc) decoder() *xml.Decoder {
	dec := xml.NewDecoder(bytes.NewReader(d.text))
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		// encoding/xml calls this for any <?xml?> naming an encoding
		// other than UTF-8, wherever it is: one after the document's
		// start would switch encodings in its middle.
		if dec.InputOffset() != d.declEnd {
			return nil, metadataCharsetError(label, "in an XML declaration that is not at the document's start")
		}
		return d.charsetReader(label, in)
	}
	return dec
}

// charsetReader converts in, declared in the encoding label, to UTF-8.
func (d *metadataDoc) charsetReader(label string, in io.Reader) (io.Reader, error) {
	name := strings.ToLower(strings.TrimSpace(label))
	isUTF16 := slices.Contains(utf16Labels, name)
	switch {
	case d.bom == "UTF-16" && isUTF16:
		return in, nil // converted by newMetadataDoc
	case d.bom != "":
		return nil, metadataCharsetError(label, "but begins with a "+d.bom+" byte order mark")
	case isUTF16:
		return nil, metadataCharsetError(label, "but is not in UTF-16 (it does not begin with a byte order mark)")
	}
	enc, ok := metadataCharsets[name]
	if !ok {
		return nil, metadataCharsetError(label, "which this server does not read")
	}
	return enc.NewDecoder().Reader(in), nil
}

// metadataCharsetError is the refusal of a document declaring the
// encoding label, for why. The label is quoted, and cut: it is the
// document's text.
func metadataCharsetError(label, why string) *apierr.Error {
	return apierr.New(apierr.InvalidXMLFromSAMLMetadataURL).WithMessage(fmt.Sprintf("The metadata declares the encoding %.64q, %s: "+
		"serve it in UTF-8 (or UTF-16, ISO-8859-1, windows-1252 or US-ASCII), declaring the encoding it is in.", label, why))
}
