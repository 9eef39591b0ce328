package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/scope"
)

// call sends one request and prints the reply JSON. Exit 0 on an ok reply, 3 on an error reply
// (printed the same way), 1 on timeout or transport failure, 2 on bad usage.
func call(args []string) int {
	fs := flag.NewFlagSet("worker call", flag.ContinueOnError)
	data := fs.String("data", "", "request JSON (default: read from stdin)")
	timeout := fs.Duration("timeout", 60*time.Second, "how long to wait for the reply; also the request's deadline (Artifact-Worker-Deadline): the worker does not start it later")
	tenant := fs.String("tenant", "", tenantUsage)
	scopeFlag := fs.String("scope", "", "the request's scope (Artifact-Worker-Scope): *, or comma-separated ws:<workspaceId> and artifact:<prefix>* entries; a reference outside it is answered as not found")
	media := fs.String("media", "", "set the request's media field: both, result or assembly (where tool.get_artifact and tool.get_history_image put the media; default: the request's own, else both)")
	prepareUsage(fs, "usage: worker call SUBJECT [--data JSON] [--timeout 60s] [--scope SCOPE] [--tenant NAME] [--media both|result|assembly] [worker settings]\n\nSends one request (from --data or stdin; a request_id is added when it has none) to the worker on\nSUBJECT (tool.get_artifact, tool.get_history_image, workspace.file_written, context.preprocess,\nartifact.metadata) and prints the reply JSON. Exit code 0: an ok reply; 3: an error reply (\"ok\": false, printed as\nwell); 1: no reply (timeout, NATS, a duplicate request_id); 2: bad usage.", args)
	args = flagsFirst(args)
	cfg, rest, err := loadConfig(fs, args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker call: %v\n", err)
		return exitUsage
	}
	if len(rest) != 1 {
		fmt.Fprintln(os.Stderr, "usage: worker call SUBJECT [--data JSON] [--timeout 60s] [--scope SCOPE] [--tenant NAME] [--media both|result|assembly]")
		return exitUsage
	}
	if *tenant != "" {
		if err := contracts.ValidateTenant(*tenant); err != nil {
			fmt.Fprintf(os.Stderr, "worker call: --tenant: %v\n", err)
			return exitUsage
		}
	}
	if *scopeFlag != "" {
		if _, err := scope.Parse(*scopeFlag); err != nil {
			fmt.Fprintf(os.Stderr, "worker call: --scope: %v\n", err)
			return exitUsage
		}
	}
	body := []byte(*data)
	if *data == "" {
		if body, err = io.ReadAll(os.Stdin); err != nil {
			fmt.Fprintf(os.Stderr, "worker call: read stdin: %v\n", err)
			return exitFailure
		}
	}
	body = withRequestID(bytes.TrimSpace(body))
	if *media != "" {
		body = withField(body, "media", *media)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	nc, c, err := dial(ctx, cfg, "artifact-worker-call", slog.New(slog.NewTextHandler(io.Discard, nil)), *tenant)
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker call: %v\n", err)
		return exitFailure
	}
	defer nc.Close()
	reply, err := c.WithScope(*scopeFlag).CallRaw(ctx, rest[0], body)
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker call: %v\n", err)
		return exitFailure
	}
	os.Stdout.Write(reply)
	fmt.Println()
	var r struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal(reply, &r) == nil && r.OK != nil && !*r.OK {
		return exitErrorReply
	}
	return exitOK
}

// withRequestID adds a random request_id to a JSON object that has none, so people can call without
// inventing one. Anything else is sent as it is, for the worker to judge.
func withRequestID(body []byte) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return body
	}
	if _, ok := obj["request_id"]; ok {
		return body
	}
	obj["request_id"], _ = json.Marshal("call-" + randomID())
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}

// withField sets key to the string value in a JSON object (the worker judges the value). Anything
// that is not a JSON object is sent as it is.
func withField(body []byte, key, value string) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return body
	}
	obj[key], _ = json.Marshal(value)
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}
