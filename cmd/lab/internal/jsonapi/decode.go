package jsonapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"interplab/cmd/lab/internal/wire"
)

// ReadBody reads r's whole body. A body over the cap MaxBody put on it is
// a 413 *Error, any other failure a 400.
func ReadBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, TooLarge(mbe.Limit)
	}
	if err != nil {
		return nil, BadRequest("", "read request body: "+err.Error())
	}
	return data, nil
}

// TooLarge is the 413 of a body over n bytes.
func TooLarge(n int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("request body over %d bytes", n)}
}

// Decode reads r's body as one JSON value into v, strictly (see
// Unmarshal).
func Decode(r *http.Request, v any) error {
	data, err := ReadBody(r)
	if err != nil {
		return err
	}
	return Unmarshal(data, v, "")
}

// Unmarshal is wire.Unmarshal: data, one JSON value, decoded into v
// strictly, its errors 400 *Errors naming the key at fault.
func Unmarshal(data []byte, v any, root string) error { return wire.Unmarshal(data, v, root) }

// Valid is wire.Valid: data is one JSON value as Unmarshal reads them.
func Valid(data []byte, root string) error { return wire.Valid(data, root) }
