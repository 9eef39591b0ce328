package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// prepareUsage sets fs's usage (see setUsage); when args ask for help it goes to stdout, as asked-for
// output, instead of stderr.
func prepareUsage(fs *flag.FlagSet, text string, args []string) {
	prepareUsageTo(fs, text, args, os.Stdout)
}

// prepareUsageTo is prepareUsage with the command's standard output given.
func prepareUsageTo(fs *flag.FlagSet, text string, args []string, stdout io.Writer) {
	setUsage(fs, text)
	for _, a := range args {
		if a == "--" {
			break
		}
		if isHelpFlag(a) {
			fs.SetOutput(stdout)
		}
	}
}

// setUsage makes fs print text, then the command's own flags (those registered so far) with their
// defaults, then the worker settings every command also reads (registered later by loadConfig).
func setUsage(fs *flag.FlagSet, text string) {
	own := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { own[f.Name] = true })
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintln(out, text)
		if len(own) > 0 {
			fmt.Fprintln(out, "\nFlags:")
			printFlags(fs, func(f *flag.Flag) bool { return own[f.Name] })
		}
		settings := 0
		fs.VisitAll(func(f *flag.Flag) {
			if !own[f.Name] {
				settings++
			}
		})
		if settings > 0 {
			fmt.Fprintln(out, "\nWorker settings (each also an environment variable: -nats-url is NATS_URL):")
			printFlags(fs, func(f *flag.Flag) bool { return !own[f.Name] })
		}
	}
}

func printFlags(fs *flag.FlagSet, keep func(*flag.Flag) bool) {
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f) {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			if name == "string" {
				line += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				line += " (default " + f.DefValue + ")"
			}
		}
		fmt.Fprintln(fs.Output(), line)
	})
}
