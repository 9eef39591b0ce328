// Package schematest validates the worker's real replies against the published JSON Schemas
// (contracts/schema/*.json, generated from the Go types: contracts/README.md, "Where the contract
// comes from"), so that a reply the schemas refuse fails the test that received it. The e2e tests
// call it on every reply they read (service/servicetest does for Call and CallRaw).
package schematest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentworks/artifact-worker/contracts"
)

// ResultSchema names the schema file of a subject's result: the subject without its first
// element, "tool.get_artifact" -> "get_artifact.result.json".
func ResultSchema(subject string) string {
	_, name, _ := strings.Cut(subject, ".")
	return name + ".result.json"
}

// RequestSchema names the schema file of a subject's request ("get_artifact.request.json").
func RequestSchema(subject string) string {
	_, name, _ := strings.Cut(subject, ".")
	return name + ".request.json"
}

const replySchema = "reply.json"

var (
	loadOnce sync.Once
	loaded   map[string]*jsonschema.Resolved
	loadErr  error
)

// Dir is the directory of the published schemas: contracts/schema of this repository.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "contracts", "schema")
}

func schemas() (map[string]*jsonschema.Resolved, error) {
	loadOnce.Do(func() {
		loaded = map[string]*jsonschema.Resolved{}
		names := []string{replySchema}
		for _, subject := range contracts.RequestSubjects {
			names = append(names, RequestSchema(subject), ResultSchema(subject))
		}
		for _, name := range names {
			raw, err := os.ReadFile(filepath.Join(Dir(), name))
			if err != nil {
				loadErr = err
				return
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(raw, &s); err != nil {
				loadErr = fmt.Errorf("%s: %w", name, err)
				return
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				loadErr = fmt.Errorf("%s: %w", name, err)
				return
			}
			loaded[name] = rs
		}
	})
	return loaded, loadErr
}

// Validate checks the JSON document raw against the schema file name (reply.json,
// get_artifact.result.json, ...).
func Validate(name string, raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return validate(name, v)
}

func validate(name string, v any) error {
	all, err := schemas()
	if err != nil {
		return err
	}
	rs, ok := all[name]
	if !ok {
		return fmt.Errorf("no schema %s", name)
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// CheckReply checks a reply to subject: the envelope against reply.json (error replies, with their
// error.assembly, included) and an ok reply's result against the subject's result schema.
func CheckReply(subject string, raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := validate(replySchema, v); err != nil {
		return err
	}
	rep, _ := v.(map[string]any) // reply.json: an object
	if ok, _ := rep["ok"].(bool); !ok {
		return nil
	}
	return validate(ResultSchema(subject), rep["result"])
}
