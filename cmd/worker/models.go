package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/llmservices/catalogue"
	"github.com/agentworks/artifact-worker/routing"
)

const modelsUsage = `usage: worker models [FILTER] [--provider P] [--capability C] [--json]
       worker models explain NAME [--json]
       worker models import --models-dev FILE --litellm FILE [-o FILE] [--curated FILE]

Without a subcommand, lists the models the capability registry knows: id, provider, input
capabilities and source (curated, catalogue, or the registry file), filtered by FILTER (a part
of the id or of an alias, any case), --provider (the model's or, for a Bedrock or gateway entry,
its serving provider; an unknown one is an error) and --capability (text, vision, file, audio,
video).

explain NAME shows how a model name as a runtime writes it resolves: the steps taken, the entry
that decides, its source, provider, input capabilities, accepted formats and image limits; or why
nothing matched (the model is then treated as text only). It exits 0 when the name resolves, 1
when nothing does, 2 on bad usage. Flags may follow the name.

import converts newer catalogue snapshots (a models.dev repository tarball with its providers/
tree, LiteLLM's model_prices_and_context_window.json, either gzipped or not) into one standalone
registry file: the curated entries (the built-in ones, or --curated FILE) over the converted
catalogue. Point LLM_SERVICES_FILE at it; the worker reloads it when it changes.

The registry is LLM_SERVICES_FILE when set (or --registry FILE), else the built-in one.`

// modelsCmd lists, explains and imports models of the capability registry.
func modelsCmd(args []string) int {
	return modelsTo(args, os.Stdout, os.Stderr)
}

func modelsTo(args []string, stdout, stderr io.Writer) int {
	sub := ""
	if len(args) > 0 && slices.Contains([]string{"list", "explain", "import"}, args[0]) {
		sub, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("worker models", flag.ContinueOnError)
	fs.SetOutput(stderr)
	registry := fs.String("registry", os.Getenv("LLM_SERVICES_FILE"), "registry file (default: LLM_SERVICES_FILE, else the built-in registry)")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	provider := fs.String("provider", "", "list: only models of this provider (or served by it)")
	capability := fs.String("capability", "", "list: only models with this input capability (text, vision, file, audio, video)")
	modelsDev := fs.String("models-dev", "", "import: the models.dev snapshot (.tar.gz of the repository, or of its providers/ tree)")
	liteLLM := fs.String("litellm", "", "import: LiteLLM's model_prices_and_context_window.json (.json or .json.gz)")
	output := fs.String("o", "", "import: write the registry file here (default: standard output)")
	curatedFile := fs.String("curated", "", "import: a curated registry file to keep over the catalogue (default: the built-in curated entries)")
	prepareUsageTo(fs, modelsUsage, args, stdout)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return helpOrUsage(err)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "worker models: "+format+"\n", a...)
		return exitUsage
	}
	if sub == "import" {
		if len(positional) != 0 || *modelsDev == "" || *liteLLM == "" {
			return fail("import needs --models-dev FILE and --litellm FILE (and no other arguments)")
		}
		return modelsImport(*modelsDev, *liteLLM, *curatedFile, *output, stdout, stderr)
	}
	r := llmservices.Default()
	if *registry != "" {
		var err error
		if r, err = llmservices.Load(*registry); err != nil {
			fmt.Fprintf(stderr, "worker models: %v\n", err)
			return exitUsage
		}
		for _, w := range r.Warnings() {
			fmt.Fprintln(stderr, w)
		}
	}
	switch sub {
	case "", "list":
		if len(positional) > 1 {
			return fail("list takes at most one filter, got %q", positional)
		}
		if *capability != "" && !contracts.KnownCapability(*capability) {
			return fail("--capability %q: use %s", *capability, contracts.CapabilityList())
		}
		p := strings.ToLower(strings.TrimSpace(*provider))
		if p != "" && !knownProvider(r, p) {
			return fail("--provider %q: no entry and no provider block of that name (known: %s)", *provider, strings.Join(providerNames(r), ", "))
		}
		filter := ""
		if len(positional) == 1 {
			filter = positional[0]
		}
		return modelsList(r, filter, p, *capability, *asJSON, stdout, stderr)
	case "explain":
		if len(positional) != 1 {
			return fail("explain takes one model name (quote it if it has spaces)")
		}
		return modelsExplain(r, positional[0], *asJSON, stdout)
	}
	return fail("unknown subcommand %q (list, explain, import)", sub) // not reached: sub is one of them
}

// parseInterspersed parses flags wherever they are among the arguments ("explain NAME --json")
// and returns the others in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional, args = append(positional, args[0]), args[1:]
	}
}

// knownProvider reports whether the registry has a provider block p or an entry made or served by p.
func knownProvider(r *llmservices.Registry, p string) bool {
	if r.HasProvider(p) {
		return true
	}
	for _, e := range r.Entries() {
		if e.Provider == p || e.ServedBy == p {
			return true
		}
	}
	return false
}

// providerNames are the providers of the registry's entries, sorted.
func providerNames(r *llmservices.Registry) []string {
	seen := map[string]bool{}
	for _, e := range r.Entries() {
		if e.Provider != "" {
			seen[e.Provider] = true
		}
	}
	names := make([]string, 0, len(seen))
	for p := range seen {
		names = append(names, p)
	}
	slices.Sort(names)
	return names
}

// matchesFilter reports whether the id or an alias of e contains filter, any case.
func matchesFilter(e llmservices.Entry, filter string) bool {
	f := strings.ToLower(strings.TrimSpace(filter))
	if f == "" || strings.Contains(strings.ToLower(e.ID), f) {
		return true
	}
	return slices.ContainsFunc(e.Aliases, func(a string) bool { return strings.Contains(strings.ToLower(a), f) })
}

func modelsList(r *llmservices.Registry, filter, provider, capability string, asJSON bool, out, stderr io.Writer) int {
	var shown []llmservices.Entry
	for _, e := range r.Entries() {
		if provider != "" && e.Provider != provider && e.ServedBy != provider {
			continue
		}
		if !matchesFilter(e, filter) {
			continue
		}
		if capability != "" && !slices.Contains(e.Capabilities, capability) {
			continue
		}
		shown = append(shown, e)
	}
	if asJSON {
		type row struct {
			ID           string   `json:"id"`
			Provider     string   `json:"provider,omitempty"`
			Capabilities []string `json:"capabilities"`
			Source       string   `json:"source"`
		}
		rows := make([]row, len(shown))
		for i, e := range shown {
			rows[i] = row{e.ID, e.Provider, e.Capabilities, e.Source}
		}
		return printJSON(out, rows)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPROVIDER\tINPUT\tSOURCE")
	for _, e := range shown {
		source := e.Source
		if e.Detail != "" {
			source += " (" + e.Detail + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, orDash(e.Provider), strings.Join(e.Capabilities, ","), source)
	}
	tw.Flush()
	fmt.Fprintf(out, "%d of %d models\n", len(shown), len(r.Entries()))
	if len(shown) == 0 && filter != "" {
		fmt.Fprintf(stderr, "worker models: no id or alias contains %q; `worker models explain NAME` shows how a full name resolves\n", filter)
	}
	return exitOK
}

// explainJSON is `worker models explain --json`: the keys are those of the list's JSON and of the
// registry file (camelCase), never Go field names.
type explainJSON struct {
	Name     string     `json:"name"`
	Resolved bool       `json:"resolved"`
	Entry    *entryJSON `json:"entry,omitempty"`
	Tried    []string   `json:"tried"`
	Rules    []string   `json:"rules"`
	Decision string     `json:"decision"`
}

type entryJSON struct {
	ID              string                  `json:"id"`
	Matched         string                  `json:"matched"`
	Provider        string                  `json:"provider,omitempty"`
	ServedBy        string                  `json:"servedBy,omitempty"`
	Family          string                  `json:"family,omitempty"`
	Source          string                  `json:"source"`
	Detail          string                  `json:"detail,omitempty"`
	Note            string                  `json:"note,omitempty"`
	Capabilities    []string                `json:"capabilities"`
	Output          []string                `json:"output"`
	Aliases         []string                `json:"aliases,omitempty"`
	Formats         formatsJSON             `json:"formats"`
	ImageLimits     llmservices.Limits      `json:"imageLimits"`
	RequestLimits   contracts.RequestLimits `json:"requestLimits"`
	ToolResultMedia string                  `json:"toolResultMedia"`
	ExtractText     bool                    `json:"extractText,omitempty"`
	// PDF is how a PDF reaches the model in the default dialect: file, pages (its pages as images
	// with their text layers) or text (a description, or its text with extract_text).
	PDF string `json:"pdf"`
}

// formatsJSON lists every modality, an empty list meaning none (the registry file's Modalities
// omits a list to inherit it).
type formatsJSON struct {
	Image []string `json:"image"`
	File  []string `json:"file"`
	Audio []string `json:"audio"`
	Video []string `json:"video"`
}

func explainView(name string, e llmservices.Entry, ok bool) explainJSON {
	v := explainJSON{Name: name, Resolved: ok, Tried: e.Tried, Rules: e.Rules, Decision: "text only: no entry matches"}
	if v.Rules == nil {
		v.Rules = []string{}
	}
	if !ok {
		return v
	}
	f := e.Formats
	media := f.ToolResultMedia
	if media == "" {
		media = routing.ToolResultMediaFollowUp
	}
	v.Decision = "decided by " + decidedBy(e)
	v.Entry = &entryJSON{
		ID: e.ID, Matched: e.Matched, Provider: e.Provider, ServedBy: e.ServedBy, Family: e.Family,
		Source: e.Source, Detail: e.Detail, Note: e.Note, Capabilities: e.Capabilities, Output: e.Output, Aliases: e.Aliases,
		Formats:       formatsJSON{Image: nonNil(f.Image), File: nonNil(f.File), Audio: nonNil(f.Audio), Video: nonNil(f.Video)},
		ImageLimits:   llmservices.Limits{MaxLongEdge: f.Limits.MaxLongEdge, MaxShortEdge: f.Limits.MaxShortEdge, MaxPixels: f.Limits.MaxPixels, MaxBytes: f.Limits.MaxBytes, StaticOnly: f.Limits.StaticOnly},
		RequestLimits: f.Request, ToolResultMedia: media, ExtractText: e.ExtractText,
		PDF: routing.PDFRoute(routing.NewCapabilities(e.Capabilities...), f, ""),
	}
	return v
}

// decidedBy says which layer, and in the catalogue which rule, decided an entry's inputs
// (docs/providers.md, "When the catalogues disagree"): a curated entry or a registry file's
// outranks the catalogue; in the catalogue a conflict rule that took an input says so in the
// entry's note.
func decidedBy(e llmservices.Entry) string {
	switch {
	case e.Source == llmservices.SourceCurated:
		return "a curated entry (llmservices/default.json): a curated fact outranks the catalogue and its conflict rules"
	case e.Source != llmservices.SourceCatalogue:
		return "an entry of " + e.Source + ": it outranks the built-in entries"
	case strings.HasPrefix(e.Note, "conflict rules: "):
		return "the catalogue's conflict rules (the note says which took what)"
	}
	return "the catalogue's records (the model's own provider first, then a vote of the others)"
}

// pdfDecision says in words how a PDF reaches the model (routing.PDFRoute).
func pdfDecision(route string, l contracts.RequestLimits) string {
	switch route {
	case contracts.RouteFile:
		return "sent as a file"
	case contracts.RoutePages:
		s := "its pages as images, each with its text layer (routing pages), up to PDF_MAX_PAGES a request"
		if l.MaxImages > 0 {
			s += fmt.Sprintf(" and the provider's %d images", l.MaxImages)
		}
		return s
	}
	return "described (its text with extract_text)"
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func modelsExplain(r *llmservices.Registry, name string, asJSON bool, out io.Writer) int {
	e, ok := r.Resolve(name)
	if asJSON {
		if code := printJSON(out, explainView(name, e, ok)); code != exitOK || ok {
			return code
		}
		return exitFailure
	}
	fmt.Fprintf(out, "name:      %s\n", name)
	fmt.Fprintln(out, "steps:")
	for i, form := range e.Tried {
		if i == 0 {
			fmt.Fprintf(out, "  %s\n", form)
		} else {
			fmt.Fprintf(out, "  → %s: %s\n", e.Rules[i-1], form)
		}
	}
	if !ok {
		fmt.Fprintln(out, "resolved:  nothing: no entry matches any of these forms, and no rule applies any more.")
		for _, form := range e.Tried[1:] {
			if letters(form) {
				fmt.Fprintf(out, "           %q is a one-word id: it is looked up only as written, with its provider (\"openrouter/auto\").\n", form)
			}
		}
		fmt.Fprintln(out, "decision:  text only (images, documents, audio and video are described, not sent).")
		fmt.Fprintln(out, "           Add the model to LLM_SERVICES_FILE, or an alias: {\"id\": NAME, \"like\": \"a known model\"}")
		fmt.Fprintln(out, "           (README, \"Adding or overriding a model\").")
		return exitFailure
	}
	source := e.Source
	if e.Detail != "" {
		source += " (" + e.Detail + ")"
	}
	fmt.Fprintf(out, "resolved:  %s (matched %q)\n", e.ID, e.Matched)
	fmt.Fprintf(out, "source:    %s\n", source)
	if len(e.Aliases) > 0 {
		fmt.Fprintf(out, "aliases:   %s\n", strings.Join(e.Aliases, ", "))
	}
	if e.Note != "" {
		fmt.Fprintf(out, "note:      %s\n", e.Note)
	}
	fmt.Fprintf(out, "decided:   %s\n", decidedBy(e))
	prov := orDash(e.Provider)
	if e.ServedBy != "" && e.ServedBy != e.Provider {
		prov += ", served by " + e.ServedBy
		if r.HasProvider(e.ServedBy) {
			prov += " (its formats apply)"
		}
	}
	if e.Family != "" {
		prov += "; API family " + e.Family
	}
	fmt.Fprintf(out, "provider:  %s\n", prov)
	fmt.Fprintf(out, "input:     %s\n", strings.Join(e.Capabilities, ", "))
	fmt.Fprintf(out, "output:    %s\n", strings.Join(e.Output, ", "))
	fmt.Fprintf(out, "formats:   image %s; file %s; audio %s; video %s\n", list(e.Formats.Image), list(e.Formats.File), list(e.Formats.Audio), list(e.Formats.Video))
	fmt.Fprintf(out, "images:    %s\n", limits(e.Formats.Limits))
	media := e.Formats.ToolResultMedia
	if media == "" {
		media = routing.ToolResultMediaFollowUp
	}
	fmt.Fprintf(out, "tool-result media (gemini): %s\n", media)
	fmt.Fprintf(out, "pdf:       %s\n", pdfDecision(routing.PDFRoute(routing.NewCapabilities(e.Capabilities...), e.Formats, ""), e.Formats.Request))
	if e.ExtractText {
		fmt.Fprintln(out, "documents: their text is extracted for this model (extractText)")
	}
	return exitOK
}

func modelsImport(modelsDev, liteLLM, curatedFile, output string, stdout, stderr io.Writer) int {
	md, err := os.ReadFile(modelsDev)
	if err != nil {
		fmt.Fprintf(stderr, "worker models import: %v\n", err)
		return exitUsage
	}
	lite, err := os.ReadFile(liteLLM)
	if err != nil {
		fmt.Fprintf(stderr, "worker models import: %v\n", err)
		return exitUsage
	}
	curated, err := llmservices.Curated()
	if curatedFile != "" {
		var data []byte
		if data, err = os.ReadFile(curatedFile); err == nil {
			curated = &llmservices.File{}
			err = json.Unmarshal(data, curated)
			curated.Extends, curated.About = "", ""
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "worker models import: curated entries: %v\n", err)
		return exitUsage
	}
	about := fmt.Sprintf("Written by `worker models import` from %s and %s, with the curated entries over the catalogue. Both catalogues are MIT-licensed (models.dev, LiteLLM): keep their licence notices with this file.", baseName(modelsDev), baseName(liteLLM))
	inputs := map[string]string{catalogue.SourceModelsDev: modelsDev, catalogue.SourceLiteLLM: liteLLM}
	out, st, err := catalogue.Convert(md, lite, about, curated)
	if err != nil {
		var bad *catalogue.InputError
		if errors.As(err, &bad) {
			fmt.Fprintf(stderr, "worker models import: %s: %v; nothing written\n", inputs[bad.Source], bad.Err)
		} else {
			fmt.Fprintf(stderr, "worker models import: %v; nothing written\n", err)
		}
		return exitFailure
	}
	// A refresh must not silently shrink the catalogue: each source must bring at least
	// MinImportShare of the entries it brings to the built-in catalogue.
	builtLite, builtMD := builtinBySource()
	for _, c := range []struct {
		source    string
		got, want int
	}{{catalogue.SourceLiteLLM, st.LiteLLMEntries, builtLite}, {catalogue.SourceModelsDev, st.ModelsDevEntries, builtMD}} {
		if float64(c.got) < MinImportShare*float64(c.want) {
			fmt.Fprintf(stderr, "worker models import: %s: %d catalogue entries from this %s snapshot, fewer than %.0f%% of the %d the built-in catalogue has from it (a truncated or wrong file?); nothing written\n",
				inputs[c.source], c.got, c.source, 100*MinImportShare, c.want)
			return exitFailure
		}
	}
	next, err := llmservices.Parse(out, "imported")
	if err != nil {
		fmt.Fprintf(stderr, "worker models import: %v; nothing written\n", err)
		return exitFailure
	}
	replaced, replacedName := llmservices.Default(), "the built-in registry"
	if output != "" {
		if prev, err := llmservices.Load(output); err == nil {
			replaced, replacedName = prev, output
		}
	}
	if output == "" {
		_, err = stdout.Write(out)
	} else {
		err = writeAtomically(output, out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "worker models import: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "worker models import: %d curated and %d catalogue entries (%d read images, %d PDF files, %d audio, %d video); LiteLLM %d chat of %d keys, models.dev %d chat of %d files\n",
		len(curated.Services), st.Entries, st.Vision, st.File, st.Audio, st.Video, st.LiteLLMChat, st.LiteLLMKeys, st.ModelsDevChat, st.ModelsDevFiles)
	reportChanges(stderr, replaced, next, replacedName)
	return exitOK
}

// MinImportShare is the least share of the built-in catalogue's entries from each source that
// an import must bring from that source's new snapshot (README, "Refreshing the catalogue").
const MinImportShare = 0.5

// builtinBySource counts the built-in catalogue's entries with a record of LiteLLM and of models.dev.
func builtinBySource() (lite, md int) {
	for _, e := range llmservices.Default().Entries() {
		if e.Source != llmservices.SourceCatalogue {
			continue
		}
		if strings.Contains(e.Detail, catalogue.SourceLiteLLM) {
			lite++
		}
		if strings.Contains(e.Detail, catalogue.SourceModelsDev) {
			md++
		}
	}
	return lite, md
}

// reportChanges says what an import changes against the registry it replaces: entries added,
// removed, and those whose input capabilities changed, with the first few of each.
func reportChanges(w io.Writer, old, next *llmservices.Registry, oldName string) {
	before := map[string][]string{}
	for _, e := range old.Entries() {
		before[strings.ToLower(e.ID)] = e.Capabilities
	}
	var added, changed []string
	seen := map[string]bool{}
	for _, e := range next.Entries() {
		id := strings.ToLower(e.ID)
		seen[id] = true
		caps, ok := before[id]
		switch {
		case !ok:
			added = append(added, e.ID)
		case !slices.Equal(caps, e.Capabilities):
			changed = append(changed, fmt.Sprintf("%s (%s → %s)", e.ID, strings.Join(caps, ","), strings.Join(e.Capabilities, ",")))
		}
	}
	var removed []string
	for _, e := range old.Entries() {
		if !seen[strings.ToLower(e.ID)] {
			removed = append(removed, e.ID)
		}
	}
	fmt.Fprintf(w, "worker models import: against %s: %d added, %d removed, %d with other input capabilities\n", oldName, len(added), len(removed), len(changed))
	for _, l := range []struct {
		what string
		ids  []string
	}{{"added", added}, {"removed", removed}, {"capabilities changed", changed}} {
		if len(l.ids) == 0 {
			continue
		}
		shown := l.ids[:min(len(l.ids), 20)]
		more := ""
		if len(l.ids) > len(shown) {
			more = fmt.Sprintf(", and %d more", len(l.ids)-len(shown))
		}
		fmt.Fprintf(w, "  %s: %s%s\n", l.what, strings.Join(shown, ", "), more)
	}
}

// letters reports whether s is letters only (a one-word id, which the registry matches only as
// written).
func letters(s string) bool {
	for _, c := range s {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func printJSON(out io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker models: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(out, string(b))
	return exitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func list(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

func limits(l routing.ImageLimits) string {
	var parts []string
	if l.MaxLongEdge > 0 {
		parts = append(parts, fmt.Sprintf("long edge <= %d px", l.MaxLongEdge))
	}
	if l.MaxShortEdge > 0 {
		parts = append(parts, fmt.Sprintf("short edge <= %d px", l.MaxShortEdge))
	}
	if l.MaxPixels > 0 {
		parts = append(parts, fmt.Sprintf("<= %d pixels", l.MaxPixels))
	}
	if l.MaxBytes > 0 {
		parts = append(parts, fmt.Sprintf("<= %d bytes", l.MaxBytes))
	}
	if l.StaticOnly {
		parts = append(parts, "static only (an animated GIF goes as its first frame)")
	}
	if len(parts) == 0 {
		return "no limits"
	}
	return strings.Join(parts, ", ")
}

// writeAtomically writes data to a temporary file beside path and renames it over path, so that a
// worker reading path (LLM_SERVICES_FILE, hot reload) never sees it half written.
func writeAtomically(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
