package llmservices

import (
	"cmp"
	"slices"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/routing"
)

// Entry is what a model name resolved to: the registry entry that decides, and how it was
// reached.
type Entry struct {
	// ID is the entry's id as its file writes it.
	ID string
	// Matched is the form of the name that was found: the entry's id or one of its aliases, lower
	// case.
	Matched string
	// Provider is the entry's provider ("openai", "anthropic", "google", "bedrock", "xai",
	// "mistral", ...): the model's own provider, whose rules (formats, token formula) apply to it.
	// Empty when the entry names none.
	Provider string
	// ServedBy is the provider the name says serves the model, when it says one: "bedrock" for
	// "anthropic.claude-3-5-sonnet-20240620-v1:0", "openrouter" for "openrouter/openai/gpt-4o",
	// "vertex" for "claude-opus-4-5@20251101". Formats follow it when the registry has that
	// provider.
	ServedBy string
	// Family is the API family ("openai", "anthropic", "google", "bedrock") of the provider whose
	// formats apply, from its provider block; empty when the block names none.
	Family string
	// Source is where the entry comes from: SourceCurated, SourceCatalogue, or the registry file's
	// name. Detail is the catalogue's own sources ("models.dev+litellm").
	Source, Detail string
	// Note is the entry's free-text note.
	Note string
	// Capabilities are its input capabilities in canonical order, text first; Output its output
	// capabilities.
	Capabilities, Output []string
	// Aliases are the entry's aliases as written.
	Aliases []string
	// Formats is what the model's API accepts (as Formats returns it).
	Formats routing.Formats
	// ExtractText is the entry's extractText.
	ExtractText bool
	// Rules are the resolution rules applied to the name, in order; empty for an exact match.
	// Tried are the forms looked up, the last one the match (when there is one).
	Rules, Tried []string
}

// lookup resolves a name without recording the rules: the entry (nil when none) and the provider
// the name says serves it.
func (r *Registry) lookup(name string) (*entry, string) {
	e, servedBy, _ := r.find(name, nil)
	return e, servedBy
}

// trace records the forms a resolution tried and the rules that made them (Resolve's).
type trace struct{ rules, tried []string }

func (t *trace) try(form string) {
	if t != nil {
		t.tried = append(t.tried, form)
	}
}

func (t *trace) rule(text, form string) {
	if t != nil {
		t.rules = append(t.rules, text)
		t.tried = append(t.tried, form)
	}
}

// find resolves a name: an Ollama tag with its ollama prefix; the name as written; the rules of
// names.go one at a time (a one-word form only as written); an Ollama tag without its prefix; a
// Hugging Face id by organisation and model name. It returns the entry (nil when none), the
// provider serving it and the form that matched; t, when not nil, records the way.
func (r *Registry) find(name string, t *trace) (*entry, string, string) {
	if r == nil || len(r.byKey) == 0 {
		return nil, "", ""
	}
	w := walker{s: lookupKey(name), hosts: r.hosts}
	if w.s == "" {
		return nil, "", ""
	}
	original := w.s
	t.try(w.s)
	if e, key, ok := r.ollama(original, true, t); ok {
		return e, "ollama", key
	}
	if ollamaTag(original, &w) {
		if e, key, ok := r.ollama(original, false, t); ok {
			return e, "ollama", key
		}
	}
	if e, ok := r.byKey[w.s]; ok {
		// A full id with its provider ("perplexity/sonar", "openrouter/auto") names its host.
		seg, _, _ := strings.Cut(w.s, "/")
		if seg == w.s || isLocal(e) {
			seg = ""
		}
		return e, cmp.Or(e.servedBy, localHost(e, w.s), w.host(seg)), w.s
	}
	for {
		if !w.spelling() && !w.version() {
			break
		}
		if t != nil { // the rule's text is for people: built only when asked
			t.rule(w.ruleText(), w.s)
		}
		if e, ok := r.byKey[w.s]; ok && !oneWord(w.s) {
			return e, cmp.Or(w.servedBy(), e.servedBy, localHost(e, w.s)), w.s
		}
	}
	if e, key, ok := r.ollama(original, false, t); ok {
		return e, "ollama", key
	}
	if e, host, key, ok := r.huggingFace(original, t); ok {
		return e, host, key
	}
	return nil, "", ""
}

// Resolve finds the entry a model name resolves to, by the rules in the package documentation
// (names.go, local.go): the name as written first, then one rule at a time, the most specific
// known entry winning. ok is false when the name resolves to nothing; Entry.Rules and Entry.Tried
// then say what was tried.
func (r *Registry) Resolve(name string) (e Entry, ok bool) {
	var t trace
	got, servedBy, matched := r.find(name, &t)
	if got == nil {
		return Entry{Rules: t.rules, Tried: t.tried}, false
	}
	e = r.entryOf(got, matched, servedBy, t.rules)
	e.Tried = t.tried
	return e, true
}

// entryOf is the exported view of e, reached through matched with the rules taken.
func (r *Registry) entryOf(e *entry, matched, servedBy string, rules []string) Entry {
	family := r.provider(e.provider).family
	if servedBy != "" && servedBy != e.provider {
		if p, ok := r.providers[servedBy]; ok {
			family = p.family
		}
	}
	return Entry{
		ID: e.id, Matched: matched, Provider: e.provider, ServedBy: servedBy, Family: family,
		Source: e.source, Detail: e.detail, Note: e.note,
		Capabilities: slices.Clone(r.inputsFor(e, servedBy)), Output: slices.Clone(e.outputs), Aliases: slices.Clone(e.aliases),
		Formats: r.entryFormats(e, servedBy), ExtractText: e.extract, Rules: rules,
	}
}

// Entries returns every entry of the registry (highest layer first, in file order), each as
// Resolve would give it for its own id.
func (r *Registry) Entries() []Entry {
	if r == nil {
		return nil
	}
	out := make([]Entry, 0, len(r.entries))
	for _, e := range r.entries {
		k := lookupKey(e.id)
		out = append(out, r.entryOf(e, k, cmp.Or(e.servedBy, localHost(e, k)), nil))
	}
	return out
}

// HasProvider reports whether the registry has a provider block of that name.
func (r *Registry) HasProvider(name string) bool {
	if r == nil {
		return false
	}
	_, ok := r.providers[strings.ToLower(name)]
	return ok
}

// Decide says which entry decides for a service id, as a reply carries it: the entry's id,
// provider and source (SourceCurated, SourceCatalogue, or SourceFile for an entry of a registry
// file), or contracts.DecidedByNone when the name resolves to nothing.
func (r *Registry) Decide(serviceID string) contracts.ModelDecision {
	e, servedBy := r.lookup(serviceID)
	if e == nil {
		return contracts.ModelDecision{DecidedBy: contracts.DecidedByNone}
	}
	source := e.source
	if source != SourceCurated && source != SourceCatalogue {
		source = SourceFile
	}
	return contracts.ModelDecision{DecidedBy: contracts.DecidedByRegistry, Entry: e.id, Provider: e.provider, ServedBy: servedBy, Source: source}
}
