package llmservices

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
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

// Registry maps service ids to their input capabilities. It is immutable once built and safe
// for concurrent use; the nil *Registry is valid and knows no service.
type Registry struct {
	inputs    map[string][]string        // lower-cased id or alias → canonical-order inputs, text included
	formats   map[string]routing.Formats // lower-cased id or alias → what the service's API accepts
	providers map[string]routing.Formats // lower-cased provider → its defaults
	ids       []string                   // service ids as written, in file order
	extract   map[string]bool            // lower-cased id or alias → extractText
}

// file is the JSON shape of a registry file.
type file struct {
	// Providers holds each provider's accepted formats and image limits, by provider name
	// ("openai", "anthropic", "google", "bedrock"); "default" applies to any other provider.
	Providers map[string]formatsJSON `json:"providers,omitempty"`
	Services  []service              `json:"services"`
}

type service struct {
	ID           string   `json:"id"`
	Aliases      []string `json:"aliases,omitempty"`
	Provider     string   `json:"provider,omitempty"`
	Note         string   `json:"note,omitempty"`
	Capabilities struct {
		Input  []string `json:"input"`
		Output []string `json:"output"`
	} `json:"capabilities"`
	// Formats and ImageLimits, when present, replace the provider's for this service (each
	// modality list on its own).
	Formats     *modalities `json:"formats,omitempty"`
	ImageLimits *limitsJSON `json:"imageLimits,omitempty"`
	// ExtractText: documents this model cannot take as files reach it as their extracted text
	// (a request's extract_text overrides it).
	ExtractText bool `json:"extractText,omitempty"`
	// ToolResultMedia, when set, replaces the provider's: where the model takes a tool result's
	// media, "inline" or "followUp" (routing.ToolResultMediaInline, ToolResultMediaFollowUp).
	ToolResultMedia string `json:"toolResultMedia,omitempty"`
}

// formatsJSON is a provider's entry.
type formatsJSON struct {
	Formats     modalities  `json:"formats"`
	ImageLimits *limitsJSON `json:"imageLimits,omitempty"`
	// ToolResultMedia is the provider's default for its services (empty: "followUp").
	ToolResultMedia string `json:"toolResultMedia,omitempty"`
}

// checkToolResultMedia reports a toolResultMedia that is neither empty nor a known value.
func checkToolResultMedia(v string) []string {
	if v == "" || v == routing.ToolResultMediaInline || v == routing.ToolResultMediaFollowUp {
		return nil
	}
	return []string{fmt.Sprintf("bad toolResultMedia %q (use %q or %q)", v, routing.ToolResultMediaInline, routing.ToolResultMediaFollowUp)}
}

// modalities lists accepted format names per input modality; a missing list is "inherit".
type modalities struct {
	Image []string `json:"image,omitempty"`
	File  []string `json:"file,omitempty"`
	Audio []string `json:"audio,omitempty"`
	Video []string `json:"video,omitempty"`
}

type limitsJSON struct {
	MaxLongEdge  int   `json:"maxLongEdge,omitempty"`
	MaxShortEdge int   `json:"maxShortEdge,omitempty"`
	MaxPixels    int   `json:"maxPixels,omitempty"`
	MaxBytes     int64 `json:"maxBytes,omitempty"`
	StaticOnly   bool  `json:"staticOnly,omitempty"`
}

func (l *limitsJSON) limits() routing.ImageLimits {
	return routing.ImageLimits{MaxLongEdge: l.MaxLongEdge, MaxShortEdge: l.MaxShortEdge, MaxPixels: l.MaxPixels, MaxBytes: l.MaxBytes, StaticOnly: l.StaticOnly}
}

// check reports bad format names (empty, upper case, with a slash: names are "png", not
// "image/png") and negative limits.
func (m *modalities) check() []string {
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

func (l *limitsJSON) check() []string {
	if l != nil && (l.MaxLongEdge < 0 || l.MaxShortEdge < 0 || l.MaxPixels < 0 || l.MaxBytes < 0) {
		return []string{"image limits must not be negative"}
	}
	return nil
}

// over returns base with the lists, limits and tool-result media placement set in m, l and
// toolResultMedia replacing its own.
func over(base routing.Formats, m *modalities, l *limitsJSON, toolResultMedia string) routing.Formats {
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

// Parse validates registry JSON; name (a file path) prefixes the errors.
func Parse(data []byte, name string) (*Registry, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("llmservices: %s: %w: %w", name, ErrInvalid, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("llmservices: %s: %w: data after the JSON object", name, ErrInvalid)
	}

	r := &Registry{
		inputs:    make(map[string][]string, len(f.Services)),
		formats:   make(map[string]routing.Formats, len(f.Services)),
		extract:   map[string]bool{},
		providers: make(map[string]routing.Formats, len(f.Providers)),
	}
	firstAt := make(map[string]int, len(f.Services))
	var errs []error
	for _, provider := range slices.Sorted(maps.Keys(f.Providers)) {
		p := f.Providers[provider]
		for _, problem := range slices.Concat(p.Formats.check(), p.ImageLimits.check(), checkToolResultMedia(p.ToolResultMedia)) {
			errs = append(errs, fmt.Errorf("llmservices: %s: provider %q: %w: %s", name, provider, ErrInvalid, problem))
		}
		r.providers[lookupKey(provider)] = over(routing.DefaultFormats(), &p.Formats, p.ImageLimits, p.ToolResultMedia)
	}
	for i, s := range f.Services {
		fail := func(format string, args ...any) {
			where := fmt.Sprintf("services[%d]", i)
			if s.ID != "" {
				where = fmt.Sprintf("service %q (services[%d])", s.ID, i)
			}
			errs = append(errs, fmt.Errorf("llmservices: %s: %s: %w: %s", name, where, ErrInvalid, fmt.Sprintf(format, args...)))
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
			r.inputs[k] = inputs
		}
		for _, key := range append([]string{s.ID}, s.Aliases...) {
			if k := lookupKey(key); k != "" && firstAt[k] == i {
				r.formats[k] = over(r.provider(s.Provider), s.Formats, s.ImageLimits, s.ToolResultMedia)
				if s.ExtractText {
					r.extract[k] = true
				}
			}
		}
		r.ids = append(r.ids, s.ID)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
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

// Capabilities returns the input capabilities of a service (by id or alias) in canonical
// order, always including text; an unknown service, or a nil Registry, gives ["text"]. The
// slice is the caller's to keep or modify.
func (r *Registry) Capabilities(serviceID string) []string {
	if r != nil {
		if in, ok := r.inputs[lookupKey(serviceID)]; ok {
			return slices.Clone(in)
		}
	}
	return []string{contracts.CapText}
}

// Formats returns what a service's API accepts (by id or alias): its own lists and limits, else
// its provider's, else the "default" provider's, else routing.DefaultFormats. An unknown service
// takes those of fallbackProvider (the provider behind the request's dialect, see
// routing.DialectProvider). A nil Registry gives routing.DefaultFormats.
func (r *Registry) Formats(serviceID, fallbackProvider string) routing.Formats {
	if r == nil {
		return routing.DefaultFormats()
	}
	if f, ok := r.formats[lookupKey(serviceID)]; ok {
		return f
	}
	return r.provider(fallbackProvider)
}

// provider is a provider's formats, else the "default" entry's, else routing.DefaultFormats.
func (r *Registry) provider(name string) routing.Formats {
	if f, ok := r.providers[lookupKey(name)]; ok && name != "" {
		return f
	}
	if f, ok := r.providers["default"]; ok {
		return f
	}
	return routing.DefaultFormats()
}

// ExtractText reports whether the service's entry (by id or alias) asks for the text of
// documents its model cannot take as files; false for an unknown service or a nil Registry.
func (r *Registry) ExtractText(serviceID string) bool {
	return r != nil && r.extract[lookupKey(serviceID)]
}

// Has reports whether the service is in the registry (by id or alias).
func (r *Registry) Has(serviceID string) bool {
	if r == nil {
		return false
	}
	_, ok := r.inputs[lookupKey(serviceID)]
	return ok
}

// Services returns the ids of the registry's services (not their aliases), in file order.
func (r *Registry) Services() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.ids)
}

//go:embed default.json
var defaultJSON []byte

var defaultRegistry = sync.OnceValue(func() *Registry {
	r, err := Parse(defaultJSON, "llmservices/default.json")
	if err != nil {
		// The embedded file is checked by TestDefaultIsValid; should it ever be broken, an empty
		// registry (text only for every service) is the safe answer.
		return &Registry{}
	}
	return r
})

// Default returns the registry embedded in the binary from default.json. It is built once and
// shared.
func Default() *Registry { return defaultRegistry() }
