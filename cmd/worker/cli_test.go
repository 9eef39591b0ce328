package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/tooldefs"
)

// The test binary doubles as the worker command: with cliEnv set it runs dispatch on its arguments.
const cliEnv = "ARTIFACT_WORKER_CLI_TEST"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		os.Exit(dispatch(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// worker runs the command line args and returns its exit code, stdout and stderr.
func worker(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), cliEnv+"=1", "NATS_URL=nats://127.0.0.1:1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

func TestCLIExplainsItself(t *testing.T) {
	t.Run("bare worker prints usage and starts nothing", func(t *testing.T) {
		code, stdout, stderr := worker(t)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "usage: worker COMMAND") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, _ := worker(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d", code)
			}
			for _, c := range append(commands, command{name: "help"}) {
				if !strings.Contains(stdout, "\n  "+c.name+" ") {
					t.Errorf("command %s not listed:\n%s", c.name, stdout)
				}
			}
			// tools prints every dialect tooldefs renders, and the help says so.
			for _, d := range tooldefs.Dialects {
				if !strings.Contains(stdout, d) {
					t.Errorf("help does not name the tools dialect %s:\n%s", d, stdout)
				}
			}
		})
	}
	// Each command's own flags come first, with their defaults, then the worker settings.
	own := map[string][]string{
		"put":     {"-id string", "-mime string"},
		"call":    {"-data string", "-timeout duration", "(default 1m0s)", "-media string"},
		"replay":  {"-subject value", "-since duration", "(default 30s)"},
		"mcp":     {"-http string", "-service-id string", "-locale string", `(default "zh")`, "-workspace-id string"},
		"tools":   {"-dialect string", `(default "openai-chat")`},
		"run":     {},
		"version": {},
	}
	for name, flags := range own {
		for _, args := range [][]string{{"help", name}, {name, "-h"}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, _ := worker(t, args...)
				if code != exitOK || !strings.HasPrefix(stdout, "usage: worker "+name) {
					t.Fatalf("exit %d, stdout %.200q", code, stdout)
				}
				settings := strings.Index(stdout, "Worker settings")
				for _, f := range flags {
					i := strings.Index(stdout, f)
					if i < 0 || (settings >= 0 && i > settings) {
						t.Errorf("%q not among the command's own flags, before the settings:\n%s", f, stdout)
					}
				}
				if name != "tools" && name != "version" && (settings < 0 || !strings.Contains(stdout[settings:], "-nats-url string")) {
					t.Errorf("worker settings missing:\n%s", stdout)
				}
			})
		}
	}
	t.Run("version", func(t *testing.T) {
		code, stdout, _ := worker(t, "version")
		if code != exitOK || !strings.HasPrefix(stdout, "artifact-worker ") || !strings.Contains(stdout, "commit ") || !strings.Contains(stdout, "contract version 1") {
			t.Fatalf("exit %d, %q", code, stdout)
		}
	})
	t.Run("tools", func(t *testing.T) {
		code, stdout, _ := worker(t, "tools", "--dialect", "anthropic", "--locale", "en")
		var tools []struct{ Name string }
		if code != exitOK || json.Unmarshal([]byte(stdout), &tools) != nil || len(tools) != 3 || tools[0].Name != "get_artifact" {
			t.Fatalf("exit %d, %q", code, stdout)
		}
	})
	for _, args := range [][]string{{"help", "nope"}, {"nope"}, {"-nats-url", "x"}, {"tools", "--dialect", "x"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if code, _, stderr := worker(t, args...); code != exitUsage || stderr == "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// TestMCPHTTPListenFailure: an --http address worker mcp cannot listen on is a bad setting: exit 2
// at once, naming the flag, before NATS is tried (the tests' NATS_URL is unreachable: that would be 1).
func TestMCPHTTPListenFailure(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	for name, addr := range map[string]string{"not a port": "127.0.0.1:http-ish", "in use": busy.Addr().String()} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := worker(t, "mcp", "--http", addr)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, "worker mcp: --http "+addr+": ") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d naming --http", code, stdout, stderr, exitUsage)
			}
		})
	}
}

// TestMCPHTTPNeedsTokenBeyondLoopback: worker mcp --http on every interface without MCP_TOKEN is a
// bad setting (exit 2 at once, naming MCP_TOKEN); so are a --host it does not know and a
// malformed --content-url or --allow-origin.
func TestMCPHTTPNeedsTokenBeyondLoopback(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--http", "0.0.0.0:0"},
		{"mcp", "--http", ":0"},
		{"mcp", "--host", "claude-web"},
		{"mcp", "--content-url", "localhost:8080"},
		{"mcp", "--http", "127.0.0.1:0", "--allow-origin", "example.com"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := worker(t, args...)
			if code != exitUsage || stdout != "" || stderr == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d", code, stdout, stderr, exitUsage)
			}
			if strings.Contains(args[2], "0:0") && !strings.Contains(stderr, "MCP_TOKEN") {
				t.Errorf("stderr %q does not name MCP_TOKEN", stderr)
			}
		})
	}
}

// TestToolsEveryDialect: worker tools prints, for each dialect, the file shipped in contracts/tools.
func TestToolsEveryDialect(t *testing.T) {
	for _, d := range []string{"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock-converse"} {
		code, stdout, stderr := worker(t, "tools", "--dialect", d, "--locale", "en")
		want, err := os.ReadFile("../../contracts/tools/" + d + ".en.json")
		if code != exitOK || err != nil || stdout != string(want) {
			t.Errorf("worker tools --dialect %s: exit %d, %v, stderr %q; stdout is not contracts/tools/%s.en.json", d, code, err, stderr, d)
		}
	}
}

// worker put without S3_ENDPOINT writes into DATA_DIR's local store only when a worker made it: run
// from another directory it refuses (exit 1, naming the directory) and creates nothing, instead of
// printing a ref no running worker can read; in the worker's directory it puts.
func TestPutRefusesAStoreNoWorkerMade(t *testing.T) {
	elsewhere := t.TempDir()
	file := filepath.Join(elsewhere, "note.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	put := func(dir string, env ...string) (int, string, string) {
		cmd := exec.Command(os.Args[0], "put", file, "--id", "note")
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), cliEnv+"=1", "S3_ENDPOINT=", "DATA_DIR="), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := put(elsewhere)
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, "no worker's store at "+filepath.Join(elsewhere, "data", "store")) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "data")); !os.IsNotExist(err) {
		t.Errorf("a refused put left %s/data behind (%v)", elsewhere, err)
	}
	// The worker's directory: its store exists (worker run opens it at start, as OpenStore does).
	workerDir := t.TempDir()
	if _, err := service.OpenStore(t.Context(), service.Config{DataDir: filepath.Join(workerDir, "data")}); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := put(workerDir); code != exitOK || strings.TrimSpace(stdout) != "artifact:note" {
		t.Fatalf("in the worker's directory: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// From elsewhere, with the worker's DATA_DIR.
	if code, stdout, stderr := put(elsewhere, "DATA_DIR="+filepath.Join(workerDir, "data")); code != exitOK || strings.TrimSpace(stdout) != "artifact:note" {
		t.Fatalf("with DATA_DIR: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
