package llmservices

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/routing"
)

// ErrInvalid is wrapped by every error about the content of a registry file (bad JSON, a
// duplicate id, an unknown capability), as opposed to failing to read it.
var ErrInvalid = errors.New("invalid llm service registry")

// inputOrder is the canonical order of input capabilities; it is also the set of valid ones.
var inputOrder = contracts.Capabilities()

var validOutputs = map[string]bool{"text": true, "image": true, "audio": true, "video": true}

// ExtendsBuiltin is the value of a registry file's "extends" that layers the file over the
// built-in registry (curated entries and the catalogue): the file's entries and providers win,
// names it does not know resolve in the built-in registry.
const ExtendsBuiltin = "builtin"

// Sources of entries (Entry.Source).
const (
	SourceCurated   = "curated"   // the hand-curated list embedded from default.json
	SourceCatalogue = "catalogue" // the catalogue converted from models.dev and LiteLLM (catalogue.json)
	// SourceFile is what Decide says for an entry of a registry file (LLM_SERVICES_FILE);
	// Entry.Source names the file.
	SourceFile = "file"
)

// Registry maps model names to their entries: input capabilities, provider, accepted formats.
// It is immutable once built and safe for concurrent use; the nil *Registry is valid and knows
// no service.
type Registry struct {
	byKey     map[string]*entry // lower-cased id or alias → entry
	entries   []*entry          // every entry, highest layer first, in file order
	providers map[string]provider
	hosts     map[string]string   // first path segment → the provider it names (File.Hosts)
	ceilings  map[string][]string // provider → the most any model reads there (Host.Inputs)
	stems     map[string]*entry   // Hugging Face model stem → local family (local.go)
	families  map[string]*entry   // Ollama family ("llava", "gemma3:1b") → its entry "ollama/…" (local.go)
	hfOrgs    map[string]bool     // Hugging Face organisations of the family table (local.go)
	warnings  []string
}

// entry is one service of a registry file, built.
type entry struct {
	id, provider, source, note string
	detail                     string // the catalogue's sources of the entry ("models.dev+litellm")
	aliases                    []string
	inputs, outputs            []string
	formats                    routing.Formats // with its provider's defaults
	own                        *Service        // for formats under another provider (ServedBy)
	extract                    bool
	byHost                     map[string][]string // inputs where a host's own records say less
	servedBy                   string              // an alias's host ("like": "azure/gpt-4o"), when its name gives none
	like                       string              // the name an alias takes its facts from; "" once taken
	spec                       *Service            // the alias's own fields, until its facts are taken
}

// provider is a provider block, built.
type provider struct {
	formats routing.Formats
	family  string
}

// File is the JSON shape of a registry file.
type File struct {
	// About is free text: where the file comes from (the converter writes the catalogue's
	// provenance here).
	About string `json:"about,omitempty"`
	// Extends, when "builtin", layers this file over the built-in registry.
	Extends string `json:"extends,omitempty"`
	// Providers holds each provider's accepted formats and image limits, by provider name
	// ("openai", "anthropic", "google", "bedrock"); "default" applies to any other provider.
	Providers map[string]Provider `json:"providers,omitempty"`
	// Hosts maps the first path segment of a model name ("cerebras/...", "together_ai/...") to
	// the provider serving it, with what that provider's API takes at most; the catalogue
	// converter derives it from every serving provider of both catalogues.
	Hosts    map[string]Host `json:"hosts,omitempty"`
	Services []Service       `json:"services"`
}

// Host is a serving provider as a model name's first path segment names it.
type Host struct {
	// Provider is the provider's registry name ("together" for "together_ai").
	Provider string `json:"provider"`
	// Inputs, when set, are the only inputs any model served there reads (a host whose every
	// record in both catalogues is text only: ["text"]).
	Inputs []string `json:"inputs,omitempty"`
}

// Service is one model's entry in a registry file.
type Service struct {
	ID      string   `json:"id"`
	Aliases []string `json:"aliases,omitempty"`
	// Like names another model ("gpt-4o", "azure/gpt-4o", "us.anthropic.claude-...-v1:0"),
	// resolved as any name is: this entry takes that entry's facts (capabilities, provider,
	// formats, limits, extractText and the host its name says serves it), and what it lists
	// itself overrides them. An Azure deployment or an application inference profile is then
	// one line.
	Like     string `json:"like,omitempty"`
	Provider string `json:"provider,omitempty"`
	Note     string `json:"note,omitempty"`
	// Source says where a catalogue entry's facts come from ("models.dev", "litellm",
	// "models.dev+litellm"); free text, shown by `worker models explain`.
	Source       string       `json:"source,omitempty"`
	Capabilities Capabilities `json:"capabilities"`
	// Formats and ImageLimits, when present, replace the provider's for this service (each
	// modality list on its own).
	Formats     *Modalities `json:"formats,omitempty"`
	ImageLimits *Limits     `json:"imageLimits,omitempty"`
	// ExtractText: documents this model cannot take as files reach it as their extracted text
	// (a request's extract_text overrides it).
	ExtractText bool `json:"extractText,omitempty"`
	// ToolResultMedia, when set, replaces the provider's: where the model takes a tool result's
	// media, "inline" or "followUp" (routing.ToolResultMediaInline, ToolResultMediaFollowUp).
	ToolResultMedia string `json:"toolResultMedia,omitempty"`
	// ByHost lists, by serving provider, the inputs the model reads there when that provider's
	// own catalogue records say less than the entry (the catalogue converter writes it).
	ByHost map[string][]string `json:"byHost,omitempty"`
}

// Capabilities are a service's input and output capabilities.
type Capabilities struct {
	Input  []string `json:"input"`
	Output []string `json:"output"`
}

// Provider is a provider's entry.
type Provider struct {
	// Family is the API family the provider speaks ("openai", "anthropic", "google",
	// "bedrock"); informational, shown by `worker models explain`.
	Family      string     `json:"family,omitempty"`
	Formats     Modalities `json:"formats"`
	ImageLimits *Limits    `json:"imageLimits,omitempty"`
	// ToolResultMedia is the provider's default for its services (empty: "followUp").
	ToolResultMedia string `json:"toolResultMedia,omitempty"`
	// Tokens is the provider's image token rule (one of routing.TokenRules): usage counts its
	// models' images with it in every dialect. Empty: the request dialect's rule.
	Tokens string `json:"tokens,omitempty"`
	// StrictToolOrdering marks a provider that rejects a user message right after a tool message
	// (Mistral and other OpenAI-compatible backends): the openai-chat assembly puts an assistant
	// message before its media follow-up (docs/design.md, "Ordering-strict providers").
	StrictToolOrdering bool `json:"strictToolOrdering,omitempty"`
	// RequestLimits are the limits the provider enforces across one request (images per request,
	// total sizes, PDF pages; docs/design.md, "Per-request limits"): assemblies carry them, and
	// the turn helpers and context.preprocess keep a request within them.
	RequestLimits *contracts.RequestLimits `json:"requestLimits,omitempty"`
}

// setsNothing reports whether the block sets none of the fields the worker uses.
func (p Provider) setsNothing() bool {
	f := p.Formats
	return p.Family == "" && f.Image == nil && f.File == nil && f.Audio == nil && f.Video == nil && p.ImageLimits == nil &&
		p.ToolResultMedia == "" && p.Tokens == "" && !p.StrictToolOrdering && p.RequestLimits == nil
}

// checkRequestLimits reports negative per-request limits.
func checkRequestLimits(l *contracts.RequestLimits) []string {
	if l != nil && (l.MaxImages < 0 || l.MaxImageBytes < 0 || l.MaxBytes < 0 || l.MaxPDFPages < 0 || l.ManyImages < 0 || l.ManyImagesMaxEdge < 0) {
		return []string{"request limits must not be negative"}
	}
	return nil
}

// checkTokens reports a tokens rule that is neither empty nor a known one.
func checkTokens(v string) []string {
	if v == "" || slices.Contains(routing.TokenRules, v) {
		return nil
	}
	return []string{fmt.Sprintf("bad tokens %q (use one of %s)", v, strings.Join(routing.TokenRules, ", "))}
}

// checkToolResultMedia reports a toolResultMedia that is neither empty nor a known value.
func checkToolResultMedia(v string) []string {
	if v == "" || v == routing.ToolResultMediaInline || v == routing.ToolResultMediaFollowUp {
		return nil
	}
	return []string{fmt.Sprintf("bad toolResultMedia %q (use %q or %q)", v, routing.ToolResultMediaInline, routing.ToolResultMediaFollowUp)}
}

// Modalities lists accepted format names per input modality; a missing list is "inherit".
type Modalities struct {
	Image []string `json:"image,omitempty"`
	File  []string `json:"file,omitempty"`
	Audio []string `json:"audio,omitempty"`
	Video []string `json:"video,omitempty"`
}

// Limits are the image limits of a provider or service.
type Limits struct {
	MaxLongEdge  int   `json:"maxLongEdge,omitempty"`
	MaxShortEdge int   `json:"maxShortEdge,omitempty"`
	MaxPixels    int   `json:"maxPixels,omitempty"`
	MaxBytes     int64 `json:"maxBytes,omitempty"`
	StaticOnly   bool  `json:"staticOnly,omitempty"`
}

func (l *Limits) limits() routing.ImageLimits {
	return routing.ImageLimits{MaxLongEdge: l.MaxLongEdge, MaxShortEdge: l.MaxShortEdge, MaxPixels: l.MaxPixels, MaxBytes: l.MaxBytes, StaticOnly: l.StaticOnly}
}

// check reports bad format names (empty, upper case, with a slash: names are "png", not
// "image/png") and negative limits.
func (m *Modalities) check() []string {
	var bad []string
	for _, list := range [][]string{m.Image, m.File, m.Audio, m.Video} {
		for _, f := range list {
			if f == "" || f != strings.ToLower(strings.TrimSpace(f)) || strings.Contains(f, "/") {
				bad = append(bad, fmt.Sprintf("bad format name %q (use lower-case names such as \"png\", \"pdf\")", f))
			}
		}
	}
	return bad
}

func (l *Limits) check() []string {
	if l != nil && (l.MaxLongEdge < 0 || l.MaxShortEdge < 0 || l.MaxPixels < 0 || l.MaxBytes < 0) {
		return []string{"image limits must not be negative"}
	}
	return nil
}

// over returns base with the lists, limits and tool-result media placement set in m, l and
// toolResultMedia replacing its own.
func over(base routing.Formats, m *Modalities, l *Limits, toolResultMedia string) routing.Formats {
	if m != nil {
		if m.Image != nil {
			base.Image = m.Image
		}
		if m.File != nil {
			base.File = m.File
		}
		if m.Audio != nil {
			base.Audio = m.Audio
		}
		if m.Video != nil {
			base.Video = m.Video
		}
	}
	if l != nil {
		base.Limits = l.limits()
	}
	if toolResultMedia != "" {
		base.ToolResultMedia = toolResultMedia
	}
	return base
}

// Load reads and validates a registry file. A read failure is returned as is (errors.Is
// fs.ErrNotExist works); a content problem wraps ErrInvalid and names the file, and every bad
// service in it, by id.
func Load(path string) (*Registry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("llmservices: %w", err)
	}
	return Parse(data, path)
}

// Parse validates registry JSON; name (a file path) prefixes the errors. Fields the worker does
// not use (a runtime's own settings such as "baseURL" kept in a shared model file) do not stop
// it: Warnings names them. A file with "extends": "builtin" is layered over the built-in
// registry.
func Parse(data []byte, name string) (*Registry, error) {
	f, warning, err := decodeFile(data, name)
	if err != nil {
		return nil, err
	}
	layers := []layer{{f: f, name: name, source: name}}
	switch f.Extends {
	case "":
	case ExtendsBuiltin:
		b, err := builtin()
		if err != nil {
			return nil, err
		}
		layers = append(layers, b...)
	default:
		return nil, fmt.Errorf("llmservices: %s: %w: extends %q (the only value is %q)", name, ErrInvalid, f.Extends, ExtendsBuiltin)
	}
	r, err := build(layers)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		r.warnings = append(r.warnings, warning)
	}
	return r, nil
}

// Warnings are the problems that did not stop loading (fields the worker does not use), one
// line for the file. Nil for a nil Registry.
func (r *Registry) Warnings() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.warnings)
}

// decodeFile decodes a registry file. A strict decode is tried first (the built-in files pass
// it); when it fails on a field the worker does not know, the file is decoded again leniently
// and the unknown fields are named in one warning.
func decodeFile(data []byte, name string) (*File, string, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	warning := ""
	if err != nil && strings.Contains(err.Error(), "unknown field") {
		f = File{}
		dec = json.NewDecoder(bytes.NewReader(data))
		err = dec.Decode(&f)
		if err == nil {
			if unknown := unknownFields(data); len(unknown) > 0 {
				warning = fmt.Sprintf("llmservices: %s: ignoring fields the worker does not use: %s", name, strings.Join(unknown, ", "))
			}
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("llmservices: %s: %w: %w", name, ErrInvalid, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, "", fmt.Errorf("llmservices: %s: %w: data after the JSON object", name, ErrInvalid)
	}
	return &f, warning, nil
}

// unknownFields names the fields of a registry file that File does not have, by path
// ("services[].baseURL", "providers.openai.apiKey"), sorted and without repeats.
func unknownFields(data []byte) []string {
	var raw struct {
		Top       map[string]json.RawMessage
		Services  []map[string]json.RawMessage `json:"services"`
		Providers map[string]map[string]json.RawMessage
	}
	_ = json.Unmarshal(data, &raw.Top)
	seen := map[string]bool{}
	note := func(path string, obj map[string]json.RawMessage, known ...string) {
		for k := range obj {
			if !slices.Contains(known, k) {
				seen[path+k] = true
			}
		}
	}
	note("", raw.Top, jsonNames[File]()...)
	if s, ok := raw.Top["services"]; ok {
		_ = json.Unmarshal(s, &raw.Services)
	}
	for _, s := range raw.Services {
		note("services[].", s, jsonNames[Service]()...)
		if c, ok := s["capabilities"]; ok {
			var caps map[string]json.RawMessage
			_ = json.Unmarshal(c, &caps)
			note("services[].capabilities.", caps, jsonNames[Capabilities]()...)
		}
	}
	if p, ok := raw.Top["providers"]; ok {
		_ = json.Unmarshal(p, &raw.Providers)
	}
	for name, p := range raw.Providers {
		note("providers."+name+".", p, jsonNames[Provider]()...)
	}
	return slices.Sorted(maps.Keys(seen))
}

// jsonNames are the JSON names of T's fields, from their tags: the fields a registry file may have.
func jsonNames[T any]() []string {
	t := reflect.TypeFor[T]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// layer is one registry file in a stack: earlier layers win.
type layer struct {
	f            *File
	name, source string
}

// build validates the layers and builds the registry. Within one layer an id or alias used twice
// is an error; across layers the earlier layer's entry wins.
func build(layers []layer) (*Registry, error) {
	n := 0
	for _, l := range layers {
		n += len(l.f.Services)
	}
	r := &Registry{
		byKey:     make(map[string]*entry, n),
		entries:   make([]*entry, 0, n),
		providers: map[string]provider{},
		hosts:     map[string]string{},
		ceilings:  map[string][]string{},
	}
	var errs []error
	for _, l := range layers {
		for _, seg := range slices.Sorted(maps.Keys(l.f.Hosts)) {
			h := l.f.Hosts[seg]
			k := lookupKey(seg)
			if _, done := r.hosts[k]; done || h.Provider == "" {
				continue
			}
			r.hosts[k] = lookupKey(h.Provider)
			if h.Inputs != nil {
				in, bad := canonicalInputs(h.Inputs)
				for _, b := range bad {
					errs = append(errs, fmt.Errorf("llmservices: %s: host %q: %w: unknown input capability %q", l.name, seg, ErrInvalid, b))
				}
				if _, done := r.ceilings[r.hosts[k]]; !done {
					r.ceilings[r.hosts[k]] = in
				}
			}
		}
	}
	// Providers: the earliest layer that names a provider defines it, unless its block sets
	// nothing the worker uses (a runtime's own settings, apiKey or baseURL, in a shared file) and
	// a later layer defines it: the built-in facts then stay.
	namedBelow := func(i int, name string) bool {
		for _, l := range layers[i+1:] {
			for n := range l.f.Providers {
				if lookupKey(n) == lookupKey(name) {
					return true
				}
			}
		}
		return false
	}
	for i, l := range layers {
		for _, name := range slices.Sorted(maps.Keys(l.f.Providers)) {
			p := l.f.Providers[name]
			if p.setsNothing() && namedBelow(i, name) {
				continue
			}
			for _, problem := range slices.Concat(p.Formats.check(), p.ImageLimits.check(), checkToolResultMedia(p.ToolResultMedia), checkTokens(p.Tokens), checkRequestLimits(p.RequestLimits)) {
				errs = append(errs, fmt.Errorf("llmservices: %s: provider %q: %w: %s", l.name, name, ErrInvalid, problem))
			}
			k := lookupKey(name)
			if _, done := r.providers[k]; !done {
				f := over(routing.DefaultFormats(), &p.Formats, p.ImageLimits, p.ToolResultMedia)
				f.Tokens, f.StrictToolOrdering = p.Tokens, p.StrictToolOrdering
				if p.RequestLimits != nil {
					f.Request = *p.RequestLimits
				}
				r.providers[k] = provider{formats: f, family: p.Family}
			}
		}
	}
	interned := map[string][]string{}
	intern := func(list []string) []string {
		k := strings.Join(list, ",")
		if v, ok := interned[k]; ok {
			return v
		}
		interned[k] = list
		return list
	}
	for _, l := range layers {
		firstAt := make(map[string]int, len(l.f.Services))
		for i := range l.f.Services {
			s := &l.f.Services[i]
			fail := func(format string, args ...any) {
				where := fmt.Sprintf("services[%d]", i)
				if s.ID != "" {
					where = fmt.Sprintf("service %q (services[%d])", s.ID, i)
				}
				errs = append(errs, fmt.Errorf("llmservices: %s: %s: %w: %s", l.name, where, ErrInvalid, fmt.Sprintf(format, args...)))
			}
			inputs, bad := canonicalInputs(s.Capabilities.Input)
			for _, b := range bad {
				fail("unknown input capability %q (want one of %s)", b, strings.Join(inputOrder, ", "))
			}
			for _, o := range s.Capabilities.Output {
				if !validOutputs[o] {
					fail("unknown output capability %q", o)
				}
			}
			if s.Formats != nil {
				for _, problem := range s.Formats.check() {
					fail("%s", problem)
				}
			}
			for _, problem := range append(s.ImageLimits.check(), checkToolResultMedia(s.ToolResultMedia)...) {
				fail("%s", problem)
			}
			if strings.TrimSpace(s.ID) == "" {
				fail("missing id")
				continue
			}
			e := &entry{
				id: s.ID, provider: s.Provider, source: l.source, note: s.Note, detail: s.Source,
				aliases: s.Aliases, inputs: intern(inputs), outputs: intern(s.Capabilities.Output),
				extract: s.ExtractText, like: strings.TrimSpace(s.Like),
			}
			if s.Formats != nil || s.ImageLimits != nil || s.ToolResultMedia != "" {
				e.own = s
			}
			for h, list := range s.ByHost {
				in, bad := canonicalInputs(list)
				for _, b := range bad {
					fail("byHost %q: unknown input capability %q", h, b)
				}
				if e.byHost == nil {
					e.byHost = map[string][]string{}
				}
				e.byHost[lookupKey(h)] = intern(in)
			}
			if e.like != "" {
				e.spec = s
			}
			e.formats = r.formatsUnder(e, e.provider)
			added := false
			for _, key := range append([]string{s.ID}, s.Aliases...) {
				k := lookupKey(key)
				if k == "" {
					fail("empty alias")
					continue
				}
				if j, dup := firstAt[k]; dup {
					fail("id or alias %q already used by services[%d]", key, j)
					continue
				}
				firstAt[k] = i
				if _, taken := r.byKey[k]; taken {
					continue // an earlier layer's entry wins
				}
				r.byKey[k] = e
				added = true
			}
			if added {
				r.entries = append(r.entries, e)
			}
		}
	}
	errs = append(errs, r.takeLikes()...)
	r.stems = localStems(r)
	r.families = localFamilies(r)
	r.hfOrgs = localOrgs(r)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}

// takeLikes gives each "like" entry the facts of the entry its name resolves to, overridden by
// what it lists itself. An alias may name another alias; one whose name resolves to nothing (or
// only to aliases naming each other) is an error.
func (r *Registry) takeLikes() []error {
	var pending []*entry
	for _, e := range r.entries {
		if e.like != "" {
			pending = append(pending, e)
		}
	}
	for len(pending) > 0 {
		var left []*entry
		for _, e := range pending {
			t, servedBy := r.lookup(e.like)
			if t == nil || t == e {
				left = append(left, e)
				continue
			}
			if t.like != "" {
				left = append(left, e) // its facts are not taken yet
				continue
			}
			s := e.spec
			if s.Capabilities.Input == nil {
				e.inputs = t.inputs
			}
			if s.Capabilities.Output == nil {
				e.outputs = t.outputs
			}
			if s.Provider == "" {
				e.provider = t.provider
			}
			if e.own == nil {
				e.own = t.own
			}
			e.extract = e.extract || t.extract
			e.byHost = t.byHost
			e.servedBy = cmp.Or(servedBy, t.servedBy)
			if e.detail == "" {
				e.detail = "like " + e.like
			}
			e.formats = r.formatsUnder(e, e.provider)
			e.like, e.spec = "", nil
		}
		if len(left) == len(pending) {
			errs := make([]error, len(left))
			for i, e := range left {
				errs[i] = fmt.Errorf("llmservices: service %q: %w: like %q resolves to no entry (or only to aliases naming each other)", e.id, ErrInvalid, e.like)
			}
			return errs
		}
		pending = left
	}
	return nil
}

// formatsUnder is e's formats under provider p's defaults.
func (r *Registry) formatsUnder(e *entry, p string) routing.Formats {
	if e.own == nil {
		return r.provider(p).formats
	}
	return over(r.provider(p).formats, e.own.Formats, e.own.ImageLimits, e.own.ToolResultMedia)
}

// canonicalInputs returns the valid input capabilities in canonical order, text always first,
// and the names that are not capabilities.
func canonicalInputs(names []string) (inputs, bad []string) {
	has := map[string]bool{contracts.CapText: true}
	for _, n := range names {
		if slices.Contains(inputOrder, n) {
			has[n] = true
		} else {
			bad = append(bad, n)
		}
	}
	for _, c := range inputOrder {
		if has[c] {
			inputs = append(inputs, c)
		}
	}
	return inputs, bad
}

func lookupKey(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// Capabilities returns the input capabilities of a model name (resolved as Resolve does) in
// canonical order, always including text; a name that resolves to nothing, or a nil Registry,
// gives ["text"]. The slice is the caller's to keep or modify.
func (r *Registry) Capabilities(serviceID string) []string {
	if e, servedBy := r.lookup(serviceID); e != nil {
		return slices.Clone(r.inputsFor(e, servedBy))
	}
	return []string{contracts.CapText}
}

// inputsFor are e's inputs when servedBy serves it: the host's own word (Service.ByHost), within
// what the host takes at all (Host.Inputs).
func (r *Registry) inputsFor(e *entry, servedBy string) []string {
	in := e.inputs
	if servedBy == "" {
		return in
	}
	if h, ok := e.byHost[servedBy]; ok {
		in = h
	}
	if ceiling, ok := r.ceilings[servedBy]; ok {
		var kept []string
		for _, c := range in {
			if slices.Contains(ceiling, c) {
				kept = append(kept, c)
			}
		}
		in = kept
	}
	return in
}

// Formats returns what a model's API accepts: the entry's own lists and limits, else those of
// the provider serving it (Entry.ServedBy when the registry has that provider, else
// Entry.Provider), else the "default" provider's, else routing.DefaultFormats. A name that
// resolves to nothing takes those of fallbackProvider (the provider behind the request's
// dialect, see routing.DialectProvider), or Bedrock's for a Bedrock ARN. A nil Registry gives routing.DefaultFormats.
func (r *Registry) Formats(serviceID, fallbackProvider string) routing.Formats {
	if r == nil {
		return routing.DefaultFormats()
	}
	e, servedBy := r.lookup(serviceID)
	if e == nil {
		if _, arn := bedrockARN(lookupKey(serviceID)); arn {
			fallbackProvider = "bedrock" // an inference profile nobody registered is still Bedrock's
		}
		return r.provider(fallbackProvider).formats
	}
	return r.entryFormats(e, servedBy)
}

// entryFormats are e's formats when servedBy serves it.
// The host's formats, limits and tool ordering apply (its API receives the parts); the token rule
// stays the model's own provider's when it has one (a Claude model counts an image as Claude
// does, on Bedrock or OpenRouter alike).
func (r *Registry) entryFormats(e *entry, servedBy string) routing.Formats {
	if servedBy != "" && servedBy != e.provider {
		if _, ok := r.providers[servedBy]; ok {
			f := r.formatsUnder(e, servedBy)
			if e.formats.Tokens != "" {
				f.Tokens = e.formats.Tokens
			}
			return f
		}
	}
	return e.formats
}

// provider is a provider's block, else the "default" entry's, else routing.DefaultFormats.
func (r *Registry) provider(name string) provider {
	if p, ok := r.providers[lookupKey(name)]; ok && name != "" {
		return p
	}
	if p, ok := r.providers["default"]; ok {
		return p
	}
	return provider{formats: routing.DefaultFormats()}
}

// ExtractText reports whether the model's entry asks for the text of documents its model cannot
// take as files; false for a name that resolves to nothing or a nil Registry.
func (r *Registry) ExtractText(serviceID string) bool {
	e, _ := r.lookup(serviceID)
	return e != nil && e.extract
}

// Has reports whether the name resolves to an entry.
func (r *Registry) Has(serviceID string) bool {
	e, _ := r.lookup(serviceID)
	return e != nil
}

// Services returns the ids of the registry's entries (not their aliases): the file's in file
// order, then those of the layers under it.
func (r *Registry) Services() []string {
	if r == nil {
		return nil
	}
	ids := make([]string, len(r.entries))
	for i, e := range r.entries {
		ids[i] = e.id
	}
	return ids
}

//go:embed default.json
var defaultJSON []byte

//go:embed catalogue.json
var catalogueJSON []byte

// builtinFiles are the two embedded files, decoded once: the curated list over the catalogue.
var builtinFiles = sync.OnceValues(func() ([]layer, error) {
	curated, _, err := decodeFile(defaultJSON, "llmservices/default.json")
	if err != nil {
		return nil, err
	}
	cat, _, err := decodeFile(catalogueJSON, "llmservices/catalogue.json")
	if err != nil {
		return nil, err
	}
	return []layer{
		{f: curated, name: "llmservices/default.json", source: SourceCurated},
		{f: cat, name: "llmservices/catalogue.json", source: SourceCatalogue},
	}, nil
})

func builtin() ([]layer, error) { return builtinFiles() }

var defaultRegistry = sync.OnceValue(func() *Registry {
	layers, err := builtin()
	if err != nil {
		return &Registry{}
	}
	r, err := build(layers)
	if err != nil {
		// The embedded files are checked by TestDefaultIsValid; should they ever be broken, an
		// empty registry (text only for every service) is the safe answer.
		return &Registry{}
	}
	return r
})

// Default returns the built-in registry: the curated entries of default.json over the catalogue
// of catalogue.json (curated entries win). It is built once and shared.
func Default() *Registry { return defaultRegistry() }

// Curated returns the hand-curated file embedded from default.json, decoded (a fresh copy): its
// providers and services, which win over the catalogue's.
func Curated() (*File, error) {
	f, _, err := decodeFile(defaultJSON, "llmservices/default.json")
	return f, err
}
