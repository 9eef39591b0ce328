package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// object is a JSON object that keeps its keys in the order they were set, so that the schemas
// read in a fixed, reviewable order (generated keys by keyRank, directive values as written).
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// keyRank orders the keywords of a generated schema node; keys not listed follow, in the order
// they were set.
var keyRank = []string{
	"$schema", "$id", "title", "$ref", "type", "format", "contentEncoding", "const", "enum",
	"minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems", "minProperties",
	"x-same-as", "examples", "description", "additionalProperties", "required", "items", "prefixItems",
	"properties", "oneOf", "anyOf", "allOf", "if", "then", "else", "$defs",
}

// sorted returns o with its keys in keyRank order (the rest after, in their order).
func (o *object) sorted() *object {
	out := newObject()
	for _, k := range keyRank {
		if v, ok := o.vals[k]; ok {
			out.set(k, v)
		}
	}
	for _, k := range o.keys {
		if _, ok := out.vals[k]; !ok {
			out.set(k, o.vals[k])
		}
	}
	return out
}

// parseJSON decodes one JSON value, objects as *object in their written order, numbers as
// json.Number.
func parseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := newObject()
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(k.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// encode writes v as indented JSON (two spaces): objects one key a line, arrays of scalars on one
// line when short, strings without HTML escaping.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeValue(&b, v, ""); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v any, indent string) error {
	switch x := v.(type) {
	case *object:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(indent + "  ")
			writeScalar(b, k)
			b.WriteString(": ")
			if err := writeValue(b, x.vals[k], indent+"  "); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		if line, ok := inline(x); ok && len(indent)+len(line) < 100 {
			b.WriteString(line)
			return nil
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(indent + "  ")
			if err := writeValue(b, e, indent+"  "); err != nil {
				return err
			}
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		return writeScalar(b, v)
	}
	return nil
}

// inline renders an array of scalars on one line.
func inline(arr []any) (string, bool) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range arr {
		switch e.(type) {
		case *object, []any:
			return "", false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeScalar(&b, e); err != nil {
			return "", false
		}
	}
	b.WriteByte(']')
	return b.String(), true
}

func writeScalar(b *bytes.Buffer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return nil
}
