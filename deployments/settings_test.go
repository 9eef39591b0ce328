package deployments

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/service"
)

const settingsSource = "../cmd/worker/settings.go"

// runtimeVariables are read by the Go runtime, not by the worker's settings table.
var runtimeVariables = map[string]bool{"GOMEMLIMIT": true, "GOMAXPROCS": true, "GOGC": true, "GODEBUG": true}

// workerSettings reads the worker's settings table (package main, so it cannot be imported) from
// cmd/worker/settings.go: variable name -> the parser it is set with (str, boolean, integer,
// byteSize, duration, or "" for an inline function).
func workerSettings(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, settingsSource, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "settings" || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			return false
		}
		for _, elt := range lit.Elts {
			row, ok := elt.(*ast.CompositeLit)
			if !ok || len(row.Elts) < 3 {
				continue
			}
			name, ok := row.Elts[0].(*ast.BasicLit)
			if !ok || name.Kind != token.STRING {
				continue
			}
			env, err := strconv.Unquote(name.Value)
			if err != nil {
				continue
			}
			kind := ""
			if call, ok := row.Elts[2].(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok {
					kind = id.Name
				}
			}
			settings[env] = kind
		}
		return false
	})
	for _, must := range []string{"NATS_URL", "S3_ENDPOINT", "HTTP_ADDR", "CONCURRENCY", "DRAIN_TIMEOUT"} {
		if _, ok := settings[must]; !ok {
			t.Fatalf("could not read the settings table from %s (no %s among %d settings): has its layout changed?", settingsSource, must, len(settings))
		}
	}
	return settings
}

// checkSetting reports a variable the worker does not read, or a value it would reject.
func checkSetting(known map[string]string, name, value string) error {
	kind, ok := known[name]
	switch {
	case ok:
	case strings.HasPrefix(name, "OTEL_"), runtimeVariables[name]:
		return nil
	default:
		return fmt.Errorf("%s is not a setting of the worker (cmd/worker/settings.go), an OTEL_* or a Go runtime variable", name)
	}
	if value == "<secret>" || value == "" {
		return nil
	}
	var err error
	switch kind {
	case "boolean":
		_, err = strconv.ParseBool(value)
	case "integer":
		_, err = strconv.Atoi(value)
	case "byteSize":
		_, err = service.ParseByteSize(value)
	case "duration":
		_, err = time.ParseDuration(value)
	}
	if err != nil {
		return fmt.Errorf("%s=%q: the worker parses it as %s: %v", name, value, kind, err)
	}
	return nil
}

func TestCheckSetting(t *testing.T) {
	known := workerSettings(t)
	tests := []struct {
		name, value string
		ok          bool
	}{
		{"NATS_URL", "nats://nats:4222", true},
		{"CONCURRENCY", "4", true},
		{"CONCURRENCY", "four", false},
		{"ACK_WAIT", "60s", true},
		{"ACK_WAIT", "60", false},
		{"S3_USE_SSL", "yes", false},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318", true},
		{"GOMEMLIMIT", "1800MiB", true},
		{"MEMORY_BUDGET", "1GiB", true},
		{"MEMORY_BUDGET", "200MB", true},
		{"MEMORY_BUDGET", "1 gigabyte", false},
		{"NATS_SERVER", "nats://nats:4222", false},
		{"S3_ACCESS_KEY", "<secret>", true},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			if err := checkSetting(known, tt.name, tt.value); (err == nil) != tt.ok {
				t.Fatalf("checkSetting = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
