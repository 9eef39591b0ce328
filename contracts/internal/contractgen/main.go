// Command contractgen writes the published forms of wire contract v1 from its one source, the Go
// types of package contracts: the JSON Schemas (contracts/schema/*.json), the TypeScript types of
// the JavaScript client (clients/js/src/contract.d.ts) and the TypedDicts of the Python client
// (clients/python/src/artifact_worker_client/contract_types.py).
//
// Run it with `go generate ./contracts` after changing a wire type; the generated files are
// committed, and TestGeneratedFilesUpToDate fails while one differs from what this makes.
//
// What it reads (contracts/README.md, "Where the contract comes from"):
//   - a struct's fields and their json tags: the properties, and which are required (those without
//     omitempty or omitzero);
//   - doc comments: each type's and field's description (paragraphs starting "Go:" are for Go
//     readers and left out);
//   - directives in those comments: //schema:KEYWORD VALUE sets a JSON Schema keyword (VALUE is
//     JSON, or a name from the named table below, such as Dialects or MaxIDLen; inside JSON, a
//     string "${Name}" is that value; lines with the same keyword join into one value);
//     //schema:alias NAME SOURCE adds another accepted spelling
//     (x-same-as); //schema:inline on a type writes it in place instead of in $defs; //ts:type,
//     //ts:name and //ts:params shape the TypeScript; //py:type the Python.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/internal/testing/modroot"
)

type kind int

const (
	kindRequest kind = iota
	kindResult
	kindReply
)

// document is one schema file and the Go type it describes.
type document struct {
	file  string
	typ   reflect.Type
	title string
	kind  kind
}

// documents lists every schema file, in the order the TypeScript declares their types.
var documents = []document{
	{"reply.json", reflect.TypeFor[contracts.Reply](), "Reply envelope", kindReply},
	{"get_artifact.request.json", reflect.TypeFor[contracts.GetArtifactRequest](), "tool.get_artifact request", kindRequest},
	{"get_artifact.result.json", reflect.TypeFor[contracts.GetArtifactResult](), "tool.get_artifact result", kindResult},
	{"get_history_image.request.json", reflect.TypeFor[contracts.GetHistoryImageRequest](), "tool.get_history_image request", kindRequest},
	{"get_history_image.result.json", reflect.TypeFor[contracts.GetHistoryImageResult](), "tool.get_history_image result", kindResult},
	{"file_written.request.json", reflect.TypeFor[contracts.FileWrittenRequest](), "workspace.file_written request", kindRequest},
	{"file_written.result.json", reflect.TypeFor[contracts.FileWrittenResult](), "workspace.file_written result", kindResult},
	{"preprocess.request.json", reflect.TypeFor[contracts.PreprocessRequest](), "context.preprocess request", kindRequest},
	{"preprocess.result.json", reflect.TypeFor[contracts.PreprocessResult](), "context.preprocess result", kindResult},
	{"metadata.request.json", reflect.TypeFor[contracts.MetadataRequest](), "artifact.metadata request", kindRequest},
	{"metadata.result.json", reflect.TypeFor[contracts.ArtifactInfo](), "artifact.metadata result (ArtifactInfo)", kindResult},
}

// named holds the values a directive may name instead of spelling them out, so that an enum or a
// limit has one home: the package's constants.
var named = map[string]any{
	"Dialects":     contracts.Dialects,
	"Capabilities": contracts.Capabilities(),
	"Locales":      contracts.Locales,
	"MediaModes":   []string{contracts.MediaBoth, contracts.MediaResult, contracts.MediaAssembly},
	"ContentTypes": []string{contracts.ContentText, contracts.ContentImage, contracts.ContentBinary},
	"Routings":     []string{contracts.RouteText, contracts.RouteImageURL, contracts.RouteFile, contracts.RoutePages},
	"BinaryTypes":  []string{contracts.BinaryImage, contracts.BinaryAudio, contracts.BinaryVideo, contracts.BinaryDocument, contracts.BinaryOther},
	"ImageActions": []string{contracts.ImageOriented, contracts.ImageFirstFrame, contracts.ImageConverted, contracts.ImageDownscaled, contracts.ImageReencoded},
	"DecidedBy":    []string{contracts.DecidedByRegistry, contracts.DecidedByRequest, contracts.DecidedByNone},
	"UsageBases":   []string{contracts.UsageText, contracts.UsageOpenAITiles, contracts.UsageAnthropicPixels, contracts.UsageGeminiTiles, contracts.UsageAudioSeconds, contracts.UsageUnknown},
	"ErrorCodes":   contracts.ErrorCodes,

	// Dialects by what their table entry says (dialects.All), for the conditions on an assembly's
	// shape: a new dialect lands in them from its table entry.
	"DialectsMediaInToolResult": dialectsWhere(func(d *dialects.Dialect) bool { return d.Media == dialects.InToolResult }),
	"DialectsBlockList": dialectsWhere(func(d *dialects.Dialect) bool {
		return d.Text == dialects.TextBlocks || d.Text == dialects.TextBedrock
	}),

	"MaxIDLen":       contracts.MaxIDLen,
	"MaxRefLen":      contracts.MaxRefLen,
	"MaxMIMETypeLen": contracts.MaxMIMETypeLen,
	"MaxPagesLen":    contracts.MaxPagesLen,
}

// dialectsWhere lists the names of the dialects of the table that match, in table order.
func dialectsWhere(match func(*dialects.Dialect) bool) []string {
	var out []string
	for _, d := range dialects.All() {
		if match(d) {
			out = append(out, d.Name)
		}
	}
	return out
}

// Paths of the generated files, relative to the repository root.
const (
	contractsDir = "contracts"
	schemaDir    = "contracts/schema"
	tsFile       = "clients/js/src/contract.d.ts"
	pyFile       = "clients/python/src/artifact_worker_client/contract_types.py"
)

func main() {
	root := flag.String("root", "", "repository root (default: found from the working directory by go.mod)")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "contractgen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if root == "" {
		var err error
		if root, err = modroot.Find(); err != nil {
			return fmt.Errorf("%w: pass -root", err)
		}
	}
	files, err := generate(root)
	if err != nil {
		return err
	}
	for path, data := range files {
		full := filepath.Join(root, path)
		if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", path)
	}
	return nil
}

// generate returns every generated file by its path from the repository root.
func generate(root string) (map[string][]byte, error) {
	docs, err := loadDocs(filepath.Join(root, contractsDir))
	if err != nil {
		return nil, err
	}
	g := &generator{docs: docs}
	out := map[string][]byte{}
	for _, d := range documents {
		o, err := g.document(d)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.file, err)
		}
		if out[filepath.ToSlash(filepath.Join(schemaDir, d.file))], err = encode(o); err != nil {
			return nil, fmt.Errorf("%s: %w", d.file, err)
		}
	}
	if out[tsFile], err = g.typescript(); err != nil {
		return nil, fmt.Errorf("%s: %w", tsFile, err)
	}
	if out[pyFile], err = g.python(); err != nil {
		return nil, fmt.Errorf("%s: %w", pyFile, err)
	}
	out[jsConstantsFile] = javaScriptConstants()
	out[pyConstantsFile] = pythonConstants()
	return out, nil
}
