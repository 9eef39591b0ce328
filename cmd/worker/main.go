// Command worker is the artifact worker: `worker run` (the default) serves the NATS subjects,
// `worker put` uploads a file as an artifact, `worker call` sends one request and prints the reply,
// `worker replay` runs stored requests through the current handlers and prints the replies.
package main

import (
	"fmt"
	"os"
)

func main() {
	cmd, args := "run", os.Args[1:]
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	commands := map[string]func([]string) int{"run": run, "put": put, "call": call, "replay": replayCmd, "mcp": mcpCmd}
	f, ok := commands[cmd]
	if !ok {
		fmt.Fprintf(os.Stderr, "worker: unknown command %q (use run, put, call or replay)\n", cmd)
		os.Exit(2)
	}
	os.Exit(f(args))
}
