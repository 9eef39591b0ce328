package contracts_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

// The schema files are generated from the Go types by contracts/internal/contractgen, and its
// TestGeneratedFilesUpToDate holds every generated file to what the generator makes (properties,
// required fields, types, every schema file generated). internal/testing/schematest validates the
// end-to-end tests' real replies against them. What neither sees is a constant left out of a list
// the generator reads (a new Dialect* constant missing from Dialects, a Code* missing from
// ErrorCodes): these tests compare each enum with the package's constants by name prefix.

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
