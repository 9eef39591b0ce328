// Command worker is the artifact worker. `worker run` serves the NATS subjects; `worker put`,
// `call`, `replay`, `mcp`, `tools`, `models` and `version` are its tools; `worker help` lists them.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentworks/artifact-worker/tooldefs"
)

// command is one subcommand: its name, a line for the command list, and its entry point (which
// parses its own flags and returns the exit code).
type command struct {
	name, summary string
	run           func(args []string) int
}

// commands in the order `worker help` lists them (help itself is handled by main).
var commands = []command{
	{"run", "serve the worker's NATS subjects (and HTTP: health, metrics, artifact content)", run},
	{"put", "upload a file as an artifact and print its ref", put},
	{"call", "send one request to the worker and print the reply", call},
	{"replay", "run stored requests through the current handlers", replayCmd},
	{"mcp", "serve the tools over MCP (stdio, or streamable HTTP with --http)", mcpCmd},
	{"tools", "print the tools as function-calling definitions (" + strings.Join(tooldefs.Dialects, ", ") + ")", toolsCmd},
	{"models", "list the models the capability registry knows; explain how a name resolves; import catalogues", modelsCmd},
	{"version", "print the version, commit and contract version", versionCmd},
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: worker COMMAND [flags]

The artifact worker reads artifacts for AI agents and answers, over NATS JetStream, with what the
agent's model can take: an image or file part, or a short description; text byte for byte.

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s  %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `  help      this list; worker help COMMAND (or worker COMMAND -h) shows a command's flags

Settings are flags and environment variables of the same name (-nats-url / NATS_URL): worker help run.
`)
}

func find(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

func main() { os.Exit(dispatch(os.Args[1:])) }

// dispatch runs the command args name and returns the exit code.
func dispatch(args []string) int {
	switch {
	case len(args) == 0:
		usage(os.Stderr)
		return exitUsage
	case isHelpFlag(args[0]) || (args[0] == "help" && len(args) == 1):
		usage(os.Stdout)
		return exitOK
	case args[0] == "help":
		c, ok := find(args[1])
		if !ok {
			fmt.Fprintf(os.Stderr, "worker help: unknown command %q\n\n", args[1])
			usage(os.Stderr)
			return exitUsage
		}
		return c.run([]string{"-h"})
	case args[0] == "-version" || args[0] == "--version":
		return versionCmd(nil)
	}
	c, ok := find(args[0])
	if !ok {
		if args[0] != "" && args[0][0] == '-' {
			fmt.Fprintf(os.Stderr, "worker: %s: flags come after a command (worker run %s ...)\n\n", args[0], args[0])
		} else {
			fmt.Fprintf(os.Stderr, "worker: unknown command %q\n\n", args[0])
		}
		usage(os.Stderr)
		return exitUsage
	}
	return c.run(args[1:])
}
