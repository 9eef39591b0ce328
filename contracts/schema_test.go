package contracts_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
)

// The schema files are generated from the Go types (internal/contractgen); these tests check the
// result independently of the generator: property names (embedded structs flattened), required
// fields, JSON types, nested objects, and enums (against the package's constants by name prefix, so
// a constant left out of a list such as Dialects is found).

const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// schemaTypes maps every schema file to its Go type. For requests, workerRequires lists the fields the
// worker rejects a request without; they are exactly the schema's required fields and the struct's
// non-omitempty fields. For results and the reply, required fields are the non-omitempty ones: what
// the worker always sends.
var schemaTypes = []struct {
	file           string
	typ            reflect.Type
	request        bool
	workerRequires []string
}{
	{"get_artifact.request.json", reflect.TypeFor[contracts.GetArtifactRequest](), true, []string{"request_id", "ref"}},
	{"get_artifact.result.json", reflect.TypeFor[contracts.GetArtifactResult](), false, nil},
	{"get_history_image.request.json", reflect.TypeFor[contracts.GetHistoryImageRequest](), true, []string{"request_id", "image_md5"}},
	{"get_history_image.result.json", reflect.TypeFor[contracts.GetHistoryImageResult](), false, nil},
	{"file_written.request.json", reflect.TypeFor[contracts.FileWrittenRequest](), true, []string{"request_id", "workspace_id", "path", "mime_type"}},
	{"file_written.result.json", reflect.TypeFor[contracts.FileWrittenResult](), false, nil},
	{"preprocess.request.json", reflect.TypeFor[contracts.PreprocessRequest](), true, []string{"request_id", "messages"}},
	{"preprocess.result.json", reflect.TypeFor[contracts.PreprocessResult](), false, nil},
	{"metadata.request.json", reflect.TypeFor[contracts.MetadataRequest](), true, []string{"request_id", "id"}},
	{"metadata.result.json", reflect.TypeFor[contracts.ArtifactInfo](), false, nil},
	{"reply.json", reflect.TypeFor[contracts.Reply](), false, nil},
}

// schemaEnums ties enums in the schemas to the package's constants with a name prefix.
var schemaEnums = []struct {
	file, pointer, constPrefix string
}{
	{"get_artifact.request.json", "/properties/dialect/enum", "Dialect"},
	{"get_artifact.request.json", "/properties/locale/enum", "Locale"},
	{"get_artifact.request.json", "/properties/capabilities/items/enum", "Cap"},
	{"get_artifact.request.json", "/properties/media/enum", "Media"},
	{"get_history_image.request.json", "/properties/media/enum", "Media"},
	{"get_artifact.result.json", "/properties/contentType/enum", "Content"},
	{"get_artifact.result.json", "/properties/routing/enum", "Route"},
	{"get_artifact.result.json", "/$defs/ArtifactMetadata/properties/binaryType/enum", "Binary"},
	{"get_artifact.result.json", "/$defs/Assembly/properties/dialect/enum", "Dialect"},
	{"get_history_image.request.json", "/properties/dialect/enum", "Dialect"},
	{"get_history_image.request.json", "/properties/locale/enum", "Locale"},
	{"get_history_image.request.json", "/properties/capabilities/items/enum", "Cap"},
	{"get_artifact.result.json", "/$defs/Usage/properties/basis/enum", "Usage"},
	{"get_history_image.result.json", "/$defs/Usage/properties/basis/enum", "Usage"},
	{"get_artifact.result.json", "/$defs/ImageProcessing/properties/actions/items/enum", "Image"},
	{"get_artifact.result.json", "/$defs/ModelDecision/properties/decidedBy/enum", "DecidedBy"},
	{"get_history_image.result.json", "/$defs/Assembly/properties/dialect/enum", "Dialect"},
	{"reply.json", "/$defs/Assembly/properties/dialect/enum", "Dialect"},
	{"preprocess.request.json", "/properties/locale/enum", "Locale"},
	{"reply.json", "/$defs/Error/properties/code/enum", "Code"},
}

func TestSchemaFilesCovered(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("schema", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk, mapped []string
	for _, p := range paths {
		onDisk = append(onDisk, filepath.Base(p))
	}
	for _, st := range schemaTypes {
		mapped = append(mapped, st.file)
	}
	slices.Sort(onDisk)
	slices.Sort(mapped)
	if !slices.Equal(onDisk, mapped) {
		t.Errorf("schema files %v, but schemaTypes maps %v: every schema needs its Go type and every message its schema", onDisk, mapped)
	}
}

func TestSchemaFilesWellFormed(t *testing.T) {
	for _, st := range schemaTypes {
		t.Run(st.file, func(t *testing.T) {
			doc := loadSchema(t, st.file)
			if got := doc["$schema"]; got != draft202012 {
				t.Errorf("$schema = %v, want %s", got, draft202012)
			}
			if id, _ := doc["$id"].(string); !strings.HasPrefix(id, "https://") || !strings.HasSuffix(id, "/"+st.file) {
				t.Errorf("$id = %q, want an https URI ending in /%s", id, st.file)
			}
			if title, _ := doc["title"].(string); strings.TrimSpace(title) == "" {
				t.Error("title is missing")
			}
			if doc["type"] != "object" {
				t.Errorf("type = %v, want object", doc["type"])
			}
			if st.request && doc["additionalProperties"] != true {
				t.Errorf("additionalProperties = %v, want true: requests grow by optional fields within v1", doc["additionalProperties"])
			}
			for _, p := range wellFormed(doc, doc, "") {
				t.Error(p)
			}
		})
	}
}

func TestSchemasMatchGoTypes(t *testing.T) {
	for _, st := range schemaTypes {
		t.Run(st.file, func(t *testing.T) {
			doc := loadSchema(t, st.file)
			var workerRequires []string
			if st.request {
				workerRequires = st.workerRequires
			}
			for _, p := range compareObject(doc, doc, st.typ, "", workerRequires) {
				t.Error(p)
			}
		})
	}
}

func TestSchemaEnumsMatchConstants(t *testing.T) {
	consts := packageStringConsts(t)
	for _, e := range schemaEnums {
		t.Run(e.file+"#"+e.pointer, func(t *testing.T) {
			node, err := pointer(loadSchema(t, e.file), e.pointer)
			if err != nil {
				t.Fatal(err)
			}
			list, ok := node.([]any)
			if !ok {
				t.Fatalf("%s is %T, want an array", e.pointer, node)
			}
			var got, want []string
			for _, v := range list {
				got = append(got, fmt.Sprint(v))
			}
			for name, v := range consts {
				if strings.HasPrefix(name, e.constPrefix) {
					want = append(want, v)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("enum %v, want the values of the %s* constants %v", got, e.constPrefix, want)
			}
		})
	}
}

// TestSchemaCheckDetectsDrift makes sure compareObject is not a pass-through: each drift below must
// be reported.
func TestSchemaCheckDetectsDrift(t *testing.T) {
	type inner struct {
		A string `json:"a"`
	}
	type base struct {
		ID string `json:"id"`
	}
	type msg struct {
		base
		Name  string    `json:"name"`
		Opt   string    `json:"opt,omitempty"`
		Zero  []string  `json:"zero,omitzero"`
		N     int       `json:"n"`
		At    time.Time `json:"at"`
		Inner inner     `json:"inner"`
		List  []inner   `json:"list"`
	}
	good := `{"type":"object","required":["id","name","n","at","inner","list"],"properties":{
		"id":{"type":"string"},"name":{"type":"string"},"opt":{"type":"string"},"zero":{"type":"array","items":{"type":"string"}},"n":{"type":"integer"},
		"at":{"type":"string","format":"date-time"},"inner":{"$ref":"#/$defs/I"},
		"list":{"type":"array","items":{"$ref":"#/$defs/I"}}},
		"$defs":{"I":{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}}}`
	cases := []struct {
		name, old, new, want string
	}{
		{"in sync", "", "", ""},
		{"field missing from schema", `"name":{"type":"string"},`, ``, `field "name" has no property`},
		{"embedded field missing", `"id":{"type":"string"},`, ``, `field "id" has no property`},
		{"property without field", `"opt":{"type":"string"}`, `"opt":{"type":"string"},"extra":{"type":"string"}`, `property "extra" has no Go field`},
		{"omitempty field required", `"required":["id",`, `"required":["id","opt",`, `field "opt" is omitempty (or omitzero) but required`},
		{"omitzero field required", `"required":["id",`, `"required":["id","zero",`, `field "zero" is omitempty (or omitzero) but required`},
		{"always-sent field not required", `"name","n"`, `"n"`, `field "name" is always sent but not required`},
		{"wrong type", `"n":{"type":"integer"}`, `"n":{"type":"string"}`, `n: schema type`},
		{"time without date-time", `"format":"date-time"`, `"format":"date"`, `at: time.Time`},
		{"nested drift", `"properties":{"a":{"type":"string"}}`, `"properties":{"b":{"type":"string"}}`, `inner: field "a" has no property`},
		{"array item drift", `"items":{"$ref":"#/$defs/I"}`, `"items":{"type":"object"}`, `list[]: no properties`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := good
			if tc.old != "" {
				if !strings.Contains(src, tc.old) {
					t.Fatalf("%q not found in the schema", tc.old)
				}
				src = strings.Replace(src, tc.old, tc.new, 1)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(src), &doc); err != nil {
				t.Fatal(err)
			}
			problems := compareObject(doc, doc, reflect.TypeFor[msg](), "", nil)
			joined := strings.Join(problems, "\n")
			switch {
			case tc.want == "" && len(problems) > 0:
				t.Errorf("want no problems, got:\n%s", joined)
			case tc.want != "" && !strings.Contains(joined, tc.want):
				t.Errorf("want a problem containing %q, got:\n%s", tc.want, joined)
			}
		})
	}
	t.Run("request field the worker requires but omitempty", func(t *testing.T) {
		var doc map[string]any
		if err := json.Unmarshal([]byte(good), &doc); err != nil {
			t.Fatal(err)
		}
		problems := strings.Join(compareObject(doc, doc, reflect.TypeFor[msg](), "", []string{"id", "opt"}), "\n")
		for _, want := range []string{`"opt" is required by the worker but omitempty (or omitzero)`, `"name" is always sent but the worker does not require it`} {
			if !strings.Contains(problems, want) {
				t.Errorf("want a problem containing %q, got:\n%s", want, problems)
			}
		}
	})
}

func loadSchema(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("schema", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s is not a JSON object: %v", file, err)
	}
	return doc
}

// field is one JSON property of a Go struct. omitempty is set for omitempty and omitzero fields:
// both may be left out of the JSON.
type field struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

// jsonFields lists the JSON properties of struct type t as encoding/json sees them: exported
// fields, embedded structs without a tag flattened, "-" skipped.
func jsonFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		options := strings.Split(opts, ",")
		optional := slices.Contains(options, "omitempty") || slices.Contains(options, "omitzero")
		out = append(out, field{name: name, omitempty: optional, typ: ft})
	}
	return out
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	timeType       = reflect.TypeFor[time.Time]()
)

// compareObject reports every difference between the object schema node (resolved against doc) and
// struct type t. workerRequires is set for a request's top level only.
func compareObject(doc, node map[string]any, t reflect.Type, path string, workerRequires []string) []string {
	var problems []string
	report := func(format string, args ...any) {
		where := path
		if where == "" {
			where = "(top level)"
		}
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}
	node, err := resolve(doc, node)
	if err != nil {
		report("%v", err)
		return problems
	}
	props, ok := node["properties"].(map[string]any)
	if !ok {
		report("no properties in the schema for Go type %s", t)
		return problems
	}
	required := map[string]bool{}
	if list, ok := node["required"].([]any); ok {
		for _, r := range list {
			required[fmt.Sprint(r)] = true
		}
	}
	fields := jsonFields(t)
	// Another spelling the worker accepts for a field ("x-same-as": "mime_type") may stand in for
	// it: the field is then required through "allOf": [{"anyOf": [{"required": [field]},
	// {"required": [spelling]}]}].
	sameAs := map[string]string{}
	for name, p := range props {
		if target, ok := p.(map[string]any)["x-same-as"].(string); ok {
			sameAs[name] = target
		}
	}
	if all, ok := node["allOf"].([]any); ok {
		for _, item := range all {
			anyOf, ok := item.(map[string]any)["anyOf"].([]any)
			if !ok {
				continue // if/then conditions and the like
			}
			var names []string
			for _, alt := range anyOf {
				if req, _ := alt.(map[string]any)["required"].([]any); len(req) == 1 {
					names = append(names, fmt.Sprint(req[0]))
				}
			}
			if len(names) < 2 || len(names) != len(anyOf) {
				report("allOf item %v is not an anyOf of single required fields", item)
				continue
			}
			for _, n := range names[1:] {
				if sameAs[n] != names[0] {
					report("allOf: %q is not x-same-as %q", n, names[0])
				}
			}
			required[names[0]] = true
		}
	}
	inGo := map[string]bool{}
	for _, f := range fields {
		inGo[f.name] = true
		sub, ok := props[f.name].(map[string]any)
		if !ok {
			report("field %q has no property in the schema", f.name)
			continue
		}
		switch {
		case f.omitempty && required[f.name]:
			report("field %q is omitempty (or omitzero) but required in the schema", f.name)
		case workerRequires != nil && slices.Contains(workerRequires, f.name) && f.omitempty:
			report("field %q is required by the worker but omitempty (or omitzero) in Go", f.name)
		case workerRequires != nil && !f.omitempty && !slices.Contains(workerRequires, f.name):
			report("field %q is always sent but the worker does not require it: make it omitempty/omitzero or require it", f.name)
		case !f.omitempty && !required[f.name]:
			report("field %q is always sent but not required in the schema", f.name)
		}
		problems = append(problems, compareValue(doc, sub, f.typ, joinPath(path, f.name))...)
	}
	for name := range props {
		if target, ok := sameAs[name]; ok {
			if !inGo[target] {
				report("property %q is x-same-as %q, which has no Go field in %s", name, target, t)
				continue
			}
			for _, f := range fields {
				if f.name == target {
					problems = append(problems, compareValue(doc, props[name].(map[string]any), f.typ, joinPath(path, name))...)
				}
			}
			continue
		}
		if !inGo[name] {
			report("property %q has no Go field in %s", name, t)
		}
	}
	for name := range required {
		if !inGo[name] {
			report("required %q has no Go field in %s", name, t)
		}
	}
	return problems
}

// compareValue checks the JSON type of one property against Go type t and descends into objects
// and arrays of objects.
func compareValue(doc, node map[string]any, t reflect.Type, path string) []string {
	node, err := resolve(doc, node)
	if err != nil {
		return []string{path + ": " + err.Error()}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType {
		return nil // any JSON: the schema says what it holds
	}
	want := jsonType(t)
	if got := schemaTypesOf(node); !slices.Contains(got, want) {
		return []string{fmt.Sprintf("%s: schema type %v, Go type %s is a JSON %s", path, got, t, want)}
	}
	switch {
	case t == timeType:
		if node["format"] != "date-time" {
			return []string{path + `: time.Time must be "format": "date-time"`}
		}
	case t.Kind() == reflect.Struct:
		return compareObject(doc, node, t, path, nil)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		items, ok := node["items"].(map[string]any)
		if !ok {
			return []string{path + ": array without items"}
		}
		return compareValue(doc, items, t.Elem(), path+"[]")
	}
	return nil
}

func jsonType(t reflect.Type) string {
	switch {
	case t == timeType:
		return "string"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "integer"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "number"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "string" // base64
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return "array"
	default:
		return "object"
	}
}

func schemaTypesOf(node map[string]any) []string {
	switch v := node["type"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, s := range v {
			out = append(out, fmt.Sprint(s))
		}
		return out
	}
	return nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// resolve follows a local "$ref" ("#/$defs/X").
func resolve(doc, node map[string]any) (map[string]any, error) {
	for range 10 {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node, nil
		}
		if !strings.HasPrefix(ref, "#") {
			return nil, fmt.Errorf("$ref %q: only local references are used in these schemas", ref)
		}
		target, err := pointer(doc, ref[1:])
		if err != nil {
			return nil, fmt.Errorf("$ref %q: %w", ref, err)
		}
		if node, ok = target.(map[string]any); !ok {
			return nil, fmt.Errorf("$ref %q is not a schema object", ref)
		}
	}
	return nil, fmt.Errorf("$ref chain too long")
}

// pointer evaluates a JSON pointer (RFC 6901) in doc.
func pointer(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("pointer %s: no %q", ptr, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("pointer %s: bad index %q", ptr, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("pointer %s: %q into a %T", ptr, tok, cur)
		}
	}
	return cur, nil
}

// wellFormed walks every schema object in node: each $ref must resolve, and each required name
// must be a declared property.
func wellFormed(doc map[string]any, node any, path string) []string {
	var problems []string
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			if _, err := resolve(doc, map[string]any{"$ref": ref}); err != nil {
				problems = append(problems, path+": "+err.Error())
			}
		}
		if req, ok := n["required"].([]any); ok {
			props, _ := n["properties"].(map[string]any)
			for _, r := range req {
				// Conditional subschemas (then/else) have no properties of their own; they may
				// require what their parent declares.
				if _, ok := props[fmt.Sprint(r)]; !ok && props != nil {
					problems = append(problems, fmt.Sprintf("%s: required %q is not a property", path, r))
				}
			}
		}
		for k, v := range n {
			problems = append(problems, wellFormed(doc, v, path+"/"+k)...)
		}
	case []any:
		for i, v := range n {
			problems = append(problems, wellFormed(doc, v, path+"/"+strconv.Itoa(i))...)
		}
	}
	return problems
}

// packageStringConsts parses the package's non-test sources and returns its string constants.
func packageStringConsts(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						out[id.Name] = v
					}
				}
			}
		}
	}
	return out
}

// ErrorCodes is the whole enum of reply.json's error code, each code once.
func TestErrorCodesListEveryCode(t *testing.T) {
	enum, err := pointer(loadSchema(t, "reply.json"), "/$defs/Error/properties/code/enum")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, v := range enum.([]any) {
		want = append(want, v.(string))
	}
	got := slices.Clone(contracts.ErrorCodes)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("contracts.ErrorCodes %v, want the reply.json enum %v", got, want)
	}
}
