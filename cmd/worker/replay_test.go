package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/replay"
	"github.com/agentworks/artifact-worker/service"
)

func TestReplayFlags(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	parse := func(t *testing.T, args ...string) (replay.Options, error) {
		t.Helper()
		fs := flag.NewFlagSet("worker replay", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f replayFlags
		f.register(fs)
		if err := fs.Parse(args); err != nil {
			return replay.Options{}, err
		}
		return f.options(now)
	}
	t.Run("valid", func(t *testing.T) {
		o, err := parse(t, "--subject", "tool.get_artifact,artifact.metadata", "--subject", "tool.get_history_image",
			"--since", "1h", "--end-time", "2026-03-01T11:30:00Z", "--limit", "7", "--publish", "replay.out", "--results")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(o.Subjects, []string{"tool.get_artifact", "artifact.metadata", "tool.get_history_image"}) {
			t.Errorf("subjects = %q", o.Subjects)
		}
		if !o.StartTime.Equal(now.Add(-time.Hour)) || !o.EndTime.Equal(now.Add(-30*time.Minute)) || o.Limit != 7 || o.PublishTo != "replay.out" || !o.Results {
			t.Errorf("options = %+v", o)
		}
		o, err = parse(t, "--start-seq", "4", "--end-seq", "9")
		if err != nil || o.StartSeq != 4 || o.EndSeq != 9 || !o.StartTime.IsZero() {
			t.Errorf("options = %+v, %v", o, err)
		}
		o, err = parse(t, "--start-time", "2026-02-28T10:00:00+01:00")
		if err != nil || !o.StartTime.Equal(time.Date(2026, 2, 28, 9, 0, 0, 0, time.UTC)) {
			t.Errorf("options = %+v, %v", o, err)
		}
	})
	bad := []struct {
		name string
		args []string
		want string
	}{
		{"two starts", []string{"--start-seq", "3", "--since", "1h"}, "give at most one"},
		{"three starts", []string{"--start-seq", "3", "--since", "1h", "--start-time", "2026-01-01T00:00:00Z"}, "give at most one"},
		{"bad start time", []string{"--start-time", "yesterday"}, "--start-time"},
		{"bad end time", []string{"--end-time", "2026-13-01"}, "--end-time"},
		{"negative since", []string{"--since", "-1h"}, "--since"},
		{"end before start", []string{"--start-seq", "5", "--end-seq", "4"}, "EndSeq 4"},
		{"end time before since", []string{"--since", "1h", "--end-time", "2026-03-01T10:00:00Z"}, "EndTime"},
		{"wildcard subject", []string{"--subject", "tool.>"}, "Subjects[0]"},
		{"wildcard publish", []string{"--publish", "replay.*"}, "PublishTo"},
		{"negative limit", []string{"--limit", "-2"}, "Limit -2"},
		{"zero timeout", []string{"--timeout", "0s"}, "--timeout"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %q", err, tt.want)
			}
		})
	}
}

func TestReplayCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--start-seq", "3", "--since", "1h"},
		{"--no-such-flag"},
		{"extra-argument"},
		{"--end-time", "soon"},
		{"--max-deliver", "zero"},
	} {
		var stdout, stderr bytes.Buffer
		if code := replayMain(context.Background(), args, func(string) string { return "" }, &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d, want %d; stderr %s", args, code, exitUsage, stderr.String())
		}
		if stdout.Len() != 0 || stderr.Len() == 0 {
			t.Errorf("%q: stdout %q, stderr %q", args, stdout.String(), stderr.String())
		}
	}
}

// replayEnv is the environment of `worker replay` against server ns and a local store in dir.
func replayEnv(t *testing.T, url, dir string) func(string) string {
	registry := filepath.Join(dir, "llmservices.json")
	if err := os.WriteFile(registry, []byte(`{"services":[{"id":"text-model","capabilities":{"input":["text"],"output":["text"]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"NATS_URL": url, "DATA_DIR": dir, "LLM_SERVICES_FILE": registry, "LOG_LEVEL": "warn"}
	return func(k string) string { return env[k] }
}

func runCommand(t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := replayMain(ctx, args, getenv, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestReplayCommandEmptyStream: on a stream without requests the command prints nothing and ends.
func TestReplayCommandEmptyStream(t *testing.T) {
	ns := natstest.Start(t)
	code, stdout, stderr := runCommand(t, replayEnv(t, ns.ClientURL(), t.TempDir()))
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "worker replay: 0 replayed") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestReplayCommand replays requests stored while no worker ran, against a local store.
func TestReplayCommand(t *testing.T) {
	ns := natstest.Start(t)
	dir := t.TempDir()
	getenv := replayEnv(t, ns.ClientURL(), dir)
	// The first run creates the topology.
	if code, _, stderr := runCommand(t, getenv); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	store, err := service.OpenStore(context.Background(), service.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	text := []byte("hello from the local store\n")
	if _, err := store.Put(context.Background(), objectstore.ArtifactKey("notes"), bytes.NewReader(text), int64(len(text)), "text/plain", map[string]string{objectstore.MetaFilename: "notes.txt"}); err != nil {
		t.Fatal(err)
	}
	nc := natstest.Connect(t, ns)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	original, err := nc.SubscribeSync("original.reply")
	if err != nil {
		t.Fatal(err)
	}
	published, err := nc.SubscribeSync("replay.out")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"request_id":"r1","ref":"artifact:notes","service_id":"text-model"}`,
		`{"request_id":"r2","ref":"artifact:absent","service_id":"text-model"}`,
		`{"request_id":"r3","id":"artifact:notes"}`,
	} {
		subject := contracts.SubjectGetArtifact
		if strings.Contains(body, `"id"`) {
			subject = contracts.SubjectMetadata
		}
		msg := &nats.Msg{Subject: subject, Data: []byte(body), Header: nats.Header{}}
		msg.Header.Set(contracts.HeaderReplyTo, "original.reply")
		if _, err := js.PublishMsg(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}

	decode := func(t *testing.T, stdout string) []replay.Line {
		t.Helper()
		var lines []replay.Line
		dec := json.NewDecoder(strings.NewReader(stdout))
		for dec.More() {
			var l replay.Line
			if err := dec.Decode(&l); err != nil {
				t.Fatalf("%v: %s", err, stdout)
			}
			lines = append(lines, l)
		}
		if strings.Count(stdout, "\n") != len(lines) {
			t.Fatalf("not one line per request: %s", stdout)
		}
		return lines
	}

	code, stdout, stderr := runCommand(t, getenv, "--publish", "replay.out", "--results")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := decode(t, stdout)
	if len(lines) != 3 || lines[0].Outcome != replay.OutcomeOK || lines[1].Outcome != replay.OutcomeErrorReply || lines[2].Outcome != replay.OutcomeOK {
		t.Fatalf("lines: %s", stdout)
	}
	var res contracts.GetArtifactResult
	if err := json.Unmarshal(lines[0].Reply.Result, &res); err != nil || res.Content != string(text) || lines[0].RequestID != "r1" {
		t.Fatalf("reply 1: %s (%v)", lines[0].Reply.Result, err)
	}
	if lines[1].Reply.Error == nil || lines[1].Reply.Error.Code != contracts.CodeArtifactNotFound {
		t.Fatalf("reply 2: %+v", lines[1].Reply)
	}
	if !strings.Contains(stderr, "3 replayed (2 ok, 1 error replies, 0 poison, 0 transient); 0 changed, 3 without an earlier result; last seq 3") {
		t.Errorf("summary: %s", stderr)
	}
	for i := range 3 {
		if _, err := published.NextMsg(10 * time.Second); err != nil {
			t.Fatalf("published reply %d: %v", i+1, err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if k, _, _ := original.Pending(); k != 0 {
		t.Fatalf("%d replies went to the original Reply-To", k)
	}

	code, stdout, stderr = runCommand(t, getenv, "--results", "--subject", contracts.SubjectGetArtifact, "--start-seq", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines = decode(t, stdout)
	if len(lines) != 1 || lines[0].Seq != 2 || lines[0].Changed == nil || *lines[0].Changed {
		t.Fatalf("second replay: %s", stdout)
	}
}
