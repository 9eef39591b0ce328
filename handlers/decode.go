package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/routing"
)

// invalid returns an invalid_request error naming field.
func invalid(field, format string, args ...any) error {
	return &contracts.Error{Code: contracts.CodeInvalidRequest, Message: fmt.Sprintf(format, args...), Field: field}
}

// decode unmarshals a request body into v. Unknown fields are accepted (contract v1 grows by
// optional fields); a field of the wrong type is an invalid_request naming that field.
func decode(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return invalid(te.Field, "field %q must be a JSON %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return invalid("", "request body is not valid JSON: %v", err)
	}
	if dec.More() {
		return invalid("", "request body has data after the JSON object")
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	case "bool":
		return "boolean"
	default:
		return "number"
	}
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

// locale validates an optional locale, defaulting to Chinese as in the seeds.
func locale(s string) (string, error) {
	switch s {
	case "":
		return contracts.LocaleZH, nil
	case contracts.LocaleZH, contracts.LocaleEN:
		return s, nil
	}
	return "", invalid("locale", "locale %q is not supported (use %q or %q)", s, contracts.LocaleZH, contracts.LocaleEN)
}

// dialect validates an optional dialect with routing.ParseDialect, the one validator of dialects.
func dialect(s string) (string, error) {
	d, err := routing.ParseDialect(s)
	if err != nil {
		return "", invalid("dialect", "dialect %q is not supported (use one of %s)", s, strings.Join(contracts.Dialects, ", "))
	}
	return d, nil
}

// presentation validates the optional locale and dialect of a request that returns message parts.
func presentation(loc, dia string) (string, string, error) {
	l, err := locale(loc)
	if err != nil {
		return "", "", err
	}
	d, err := dialect(dia)
	return l, d, err
}
