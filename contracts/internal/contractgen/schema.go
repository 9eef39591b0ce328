package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// schemaBase is the $id prefix of every schema file.
const schemaBase = "https://github.com/agentworks/artifact-worker/contracts/schema/"

// Sentences every request schema and every result schema says, added after the type's own
// description.
const (
	requestNote = "additionalProperties is true on purpose: contract v1 grows by optional fields, and the worker ignores fields it does not know, so a runtime may send fields of a newer v1 minor to an older worker. Every string must be valid UTF-8 (no lone surrogate escapes): otherwise invalid_request naming the field. A known field in another spelling is never ignored: it is accepted where a property below says so (x-same-as), otherwise answered invalid_request naming it."
	resultNote  = "Consumers must ignore properties they do not know: contract v1 may add optional fields to results."
)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	timeType       = reflect.TypeFor[time.Time]()
)

// field is one JSON property of a Go struct as encoding/json sees it (embedded structs flattened).
type field struct {
	name     string       // JSON name
	goName   string       // Go field name
	owner    reflect.Type // the struct that declares it
	typ      reflect.Type
	optional bool // omitempty or omitzero
}

func jsonFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		options := strings.Split(opts, ",")
		out = append(out, field{
			name: name, goName: f.Name, owner: t, typ: f.Type,
			optional: slices.Contains(options, "omitempty") || slices.Contains(options, "omitzero"),
		})
	}
	return out
}

// generator builds the schemas and types of one run.
type generator struct {
	docs map[string]*typeDoc
	// defs and defOrder collect the $defs of the document being built.
	defs     map[string]*object
	defOrder []string
}

func (g *generator) typeDoc(t reflect.Type) *typeDoc {
	if td, ok := g.docs[t.Name()]; ok {
		return td
	}
	return &typeDoc{fields: map[string]comment{}}
}

func (g *generator) fieldDoc(f field) comment {
	return g.typeDoc(f.owner).fields[f.goName]
}

func (g *generator) inline(t reflect.Type) bool {
	_, ok := g.typeDoc(t).get("schema", "inline")
	return ok
}

// document builds the schema file of one document.
func (g *generator) document(d document) (*object, error) {
	g.defs, g.defOrder = map[string]*object{}, nil
	root, err := g.object(d.typ)
	if err != nil {
		return nil, err
	}
	desc, _ := root.get("description")
	text, _ := desc.(string)
	switch d.kind {
	case kindRequest:
		text = join(text, requestNote)
		root.set("additionalProperties", true)
	case kindResult:
		text = join(text, resultNote)
	}
	root.set("description", text)
	out := newObject()
	out.set("$schema", "https://json-schema.org/draft/2020-12/schema")
	out.set("$id", schemaBase+d.file)
	out.set("$comment", "Generated from the Go types of contracts/*.go by `go generate ./contracts`: edit the Go type (doc comments, //schema: directives), not this file (contracts/README.md, \"Where the contract comes from\").")
	out.set("title", d.title)
	root = root.sorted()
	for _, k := range root.keys {
		out.set(k, root.vals[k])
	}
	if len(g.defOrder) > 0 {
		defs := newObject()
		for _, name := range g.defOrder {
			defs.set(name, g.defs[name])
		}
		out.set("$defs", defs)
	}
	return out, nil
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// object builds the schema of struct type t: its properties in field order, the non-optional ones
// required, and the type's //schema: directives.
func (g *generator) object(t reflect.Type) (*object, error) {
	td := g.typeDoc(t)
	o := newObject()
	o.set("type", "object")
	if td.text != "" {
		o.set("description", td.text)
	}
	props := newObject()
	var required, allOf []any
	type alias struct {
		f            field
		name, source string
	}
	var aliases []alias
	for _, f := range jsonFields(t) {
		fd := g.fieldDoc(f)
		p, err := g.property(f.typ, fd)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name(), f.goName, err)
		}
		props.set(f.name, p)
		var mine []any
		if v, ok := fd.get("schema", "alias"); ok {
			for _, line := range strings.Split(v, "\n") {
				name, source, _ := strings.Cut(strings.TrimSpace(line), " ")
				if name == "" || source == "" {
					return nil, fmt.Errorf("%s.%s: //schema:alias wants NAME SOURCE, got %q", t.Name(), f.goName, line)
				}
				aliases = append(aliases, alias{f, name, source})
				mine = append(mine, name)
			}
		}
		switch {
		case f.optional:
		case len(mine) > 0:
			// Required, but another spelling may stand in for it.
			anyOf := []any{requiredOf(f.name)}
			for _, name := range mine {
				anyOf = append(anyOf, requiredOf(name.(string)))
			}
			allOf = append(allOf, single("anyOf", anyOf))
		default:
			required = append(required, f.name)
		}
	}
	for _, a := range aliases {
		p, err := g.property(a.f.typ, g.fieldDoc(a.f))
		if err != nil {
			return nil, err
		}
		p.set("x-same-as", a.f.name)
		p.set("description", fmt.Sprintf("Accepted in place of %s (%s's spelling). Sending both with different values: invalid_request (field %s).", a.f.name, a.source, a.name))
		props.set(a.name, p.sorted())
	}
	if len(required) > 0 {
		o.set("required", required)
	}
	o.set("properties", props)
	if len(allOf) > 0 {
		o.set("allOf", allOf)
	}
	for _, d := range td.dirs {
		if d.tool != "schema" || d.key == "inline" {
			continue
		}
		v, err := directiveValue(d)
		if err != nil {
			return nil, fmt.Errorf("type %s: %w", t.Name(), err)
		}
		if d.key == "allOf" { // after the generated ones
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("type %s: //schema:allOf is not an array", t.Name())
			}
			prev, _ := o.get("allOf")
			old, _ := prev.([]any)
			v = append(old, list...)
		}
		o.set(d.key, v)
	}
	return o.sorted(), nil
}

func requiredOf(name string) *object { return single("required", []any{name}) }

func single(k string, v any) *object {
	o := newObject()
	o.set(k, v)
	return o
}

// property builds the schema of a value of Go type t described by comment c.
func (g *generator) property(t reflect.Type, c comment) (*object, error) {
	o, err := g.value(t)
	if err != nil {
		return nil, err
	}
	for _, d := range c.dirs {
		if d.tool != "schema" || d.key == "alias" {
			continue
		}
		v, err := directiveValue(d)
		if err != nil {
			return nil, err
		}
		target := o
		if items, ok := o.get("items"); ok && (d.key == "enum" || d.key == "const") {
			// An enum on a list is the enum of its items.
			target = items.(*object)
			if _, isRef := target.get("$ref"); isRef {
				return nil, fmt.Errorf("//schema:%s on a list of objects", d.key)
			}
		}
		target.set(d.key, v)
		if target != o {
			o.set("items", target.sorted())
		}
	}
	if c.text != "" {
		o.set("description", c.text)
	}
	return o.sorted(), nil
}

// value is the schema Go type t implies: its JSON type, and for a struct its object (inline) or a
// reference to it in $defs.
func (g *generator) value(t reflect.Type) (*object, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	o := newObject()
	switch {
	case t == rawMessageType:
		// Any JSON: the directives say what it holds.
	case t == timeType:
		o.set("type", "string")
		o.set("format", "date-time")
	case t.Kind() == reflect.Struct:
		if g.inline(t) {
			return g.object(t)
		}
		if err := g.define(t); err != nil {
			return nil, err
		}
		o.set("$ref", "#/$defs/"+t.Name())
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		o.set("type", "string")
		o.set("contentEncoding", "base64")
	case t.Kind() == reflect.Slice:
		items, err := g.value(t.Elem())
		if err != nil {
			return nil, err
		}
		o.set("type", "array")
		o.set("items", items)
	case t.Kind() == reflect.String:
		o.set("type", "string")
	case t.Kind() == reflect.Bool:
		o.set("type", "boolean")
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		o.set("type", "integer")
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		o.set("type", "number")
	default:
		return nil, fmt.Errorf("no JSON Schema for Go type %s", t)
	}
	return o, nil
}

// define adds struct type t to the document's $defs (once).
func (g *generator) define(t reflect.Type) error {
	name := t.Name()
	if _, ok := g.defs[name]; ok {
		return nil
	}
	g.defs[name] = nil // reserved: a type that refers to itself stops here
	g.defOrder = append(g.defOrder, name)
	o, err := g.object(t)
	if err != nil {
		return err
	}
	g.defs[name] = o
	return nil
}

// directiveValue is a //schema: directive's value: JSON, or the name of a value in named.
func directiveValue(d directive) (any, error) {
	s := strings.TrimSpace(d.value)
	if v, ok := named[s]; ok {
		return toJSON(v), nil
	}
	v, err := parseJSON(s)
	if err != nil {
		return nil, fmt.Errorf("//%s:%s: %q is neither JSON nor a name the generator knows (%v)", d.tool, d.key, s, err)
	}
	return substitute(v)
}

// substitute replaces each string "${Name}" inside a directive's JSON by the value named Name.
func substitute(v any) (any, error) {
	switch x := v.(type) {
	case *object:
		for _, k := range x.keys {
			sv, err := substitute(x.vals[k])
			if err != nil {
				return nil, err
			}
			x.vals[k] = sv
		}
	case []any:
		for i, e := range x {
			sv, err := substitute(e)
			if err != nil {
				return nil, err
			}
			x[i] = sv
		}
	case string:
		if name, ok := strings.CutPrefix(x, "${"); ok && strings.HasSuffix(name, "}") {
			nv, ok := named[strings.TrimSuffix(name, "}")]
			if !ok {
				return nil, fmt.Errorf("%q names no value the generator knows", x)
			}
			return toJSON(nv), nil
		}
	}
	return v, nil
}

// toJSON turns a Go value of the named table into the generator's JSON values.
func toJSON(v any) any {
	switch x := v.(type) {
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case int:
		return json.Number(fmt.Sprint(x))
	}
	return v
}
