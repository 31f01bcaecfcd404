package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Decode reads a JSON object body into dst. An empty body decodes as {}
// because the SDKs send some POSTs without one. Unknown fields are allowed
// (SDKs add telemetry fields such as dfp_telemetry_id); wrong types and
// malformed JSON become invalid_request errors that name the problem. When
// dst has fields this server cannot honour (Unsupported), Decode refuses
// them too, so that no handler can forget to, and resolves the body's
// references when the route asked for it (SetRefResolver).
func Decode(r *http.Request, dst any) error {
	if err := decode(r, dst); err != nil {
		return err
	}
	if err := resolveRefs(r, dst); err != nil {
		return err
	}
	if u, ok := dst.(Unsupported); ok {
		return u.Unsupported()
	}
	return nil
}

func decode(r *http.Request, dst any) error {
	buf := bodyBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 {
			buf.Reset()
			bodyBufs.Put(buf)
		}
	}()
	if n := r.ContentLength; n > 0 && n <= 64<<10 {
		buf.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead free to see EOF
	}
	_, err := buf.ReadFrom(r.Body)
	body := buf.Bytes()
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apierr.New(apierr.RequestTooLarge)
		}
		return apierr.Wrap(apierr.InvalidRequest, err).WithMessage("The request body could not be read.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if f, ok := dst.(StringFields); ok {
		if done, err := decodeFast(body, f); done || err != nil {
			return err
		}
	} else if !plainText(body) {
		if err := cleanJSON(body); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr):
			return apierr.Invalid(TypeMismatch(body, typeErr))
		case errors.As(err, &syntaxErr):
			return apierr.Wrap(apierr.InvalidRequest, err).WithMessage(
				fmt.Sprintf("The request body is not valid JSON (at byte %d).", syntaxErr.Offset))
		default:
			return apierr.Wrap(apierr.InvalidRequest, err).WithMessage("The request body must be a JSON object.")
		}
	}
	return nil
}

// bodyBufs recycles request body buffers: Unmarshal copies every string
// it keeps (json.Unmarshaler implementations must copy too), so a body is
// garbage once decoded.
var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Required returns an invalid_request error when value is empty.
func Required(field, value string) error {
	if strings.TrimSpace(value) == "" {
		return apierr.Invalid(field, field+" is required.")
	}
	return nil
}
