package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/buildinfo"
	"github.com/agentworks/artifact-worker/tooldefs"
)

// versionCmd prints the version, the commit and the wire contract version.
func versionCmd(args []string) int {
	fs := flag.NewFlagSet("worker version", flag.ContinueOnError)
	prepareUsage(fs, "usage: worker version\n\nPrints the worker's version, the commit it was built from and the wire contract version it speaks.", args)
	if err := fs.Parse(args); err != nil {
		return helpOrUsage(err)
	}
	fmt.Printf("artifact-worker %s (commit %s, contract version %s)\n", buildinfo.Version, buildinfo.CommitOrUnknown(), contracts.Version)
	return exitOK
}

// toolsCmd prints the tools as ready function-calling definitions.
func toolsCmd(args []string) int {
	fs := flag.NewFlagSet("worker tools", flag.ContinueOnError)
	dialect := fs.String("dialect", tooldefs.DialectOpenAIChat, "openai-chat, openai-responses, anthropic, gemini or bedrock-converse (LangChain: openai-chat)")
	locale := fs.String("locale", contracts.DefaultLocale, "language of the descriptions: "+contracts.LocaleList())
	prepareUsage(fs, `usage: worker tools [--dialect openai-chat|openai-responses|anthropic|gemini|bedrock-converse] [--locale zh|en]

Prints get_artifact, get_history_image and write_file as a JSON array of function-calling tool
definitions for the dialect, with the designs' descriptions (the same files are in
contracts/tools/). Your runtime sends the model's calls to the worker (tool.get_artifact,
tool.get_history_image, workspace.file_written).`, args)
	if err := fs.Parse(args); err != nil {
		return helpOrUsage(err)
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "worker tools: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	out, err := tooldefs.Render(*dialect, *locale)
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker tools: %v\n", err)
		return exitUsage
	}
	fmt.Println(string(out))
	return exitOK
}

// helpOrUsage is the exit code of a failed flag parse: 0 when help was asked for.
func helpOrUsage(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}
