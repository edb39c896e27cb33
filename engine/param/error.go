package param

import "strconv"

// FieldError reports a setting that is not allowed. Field is the vocabulary
// name, Value the offending value as text, Allowed the allowed range in words.
type FieldError struct {
	Field   string
	Value   string
	Allowed string
}

func (e *FieldError) Error() string {
	return e.Field + " = " + strconv.Quote(e.Value) + " is not allowed: want " + e.Allowed
}

// Allowed returns what err says is allowed: a *FieldError's Allowed, or
// the error's text.
func Allowed(err error) string {
	if fe, ok := err.(*FieldError); ok {
		return fe.Allowed
	}
	return err.Error()
}
