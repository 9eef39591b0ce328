// Package catalogue converts two public model catalogues into a registry file of the llmservices
// format: models.dev (a tarball of its repository's providers/ tree) and LiteLLM's model map
// (model_prices_and_context_window.json, gzipped). The snapshots the built-in catalogue was made
// from are in snapshots/ with their licences; `go generate ./llmservices` (or `worker models
// import`) runs the conversion again.
//
// The conversion, step by step:
//
//   - Records. Every LiteLLM key whose mode is "chat" or "responses", and every models.dev model
//     file whose modalities (its own, else those it inherits through base_model) take text in
//     and give text out, is a record: a name as written, the provider serving it, and the input
//     modalities it claims. Embedding, image-generation, speech, transcription, moderation and
//     rerank models are not chat models and are left out: a models.dev file (which writes an
//     embedding model as text in, text out) when LiteLLM lists its model only in such a mode. So
//     is a models.dev file whose modalities are unknown (no [modalities] and nothing to inherit).
//   - Inputs. A record reads images when LiteLLM sets supports_vision (or supports_image_input)
//     or lists "image" in supported_modalities, or models.dev lists "image"; PDF files
//     ("file") with supports_pdf_input or models.dev's "pdf"; audio and video with
//     supports_audio_input / supports_video_input or "audio" / "video" in either list.
//   - base_model. A models.dev file without [modalities] inherits them from its base model: the
//     file providers/P/models/M.toml for base_model "P/M" when it has its own, else what the
//     records of M (in either source) claim.
//   - Entries. Records are filed under llmservices.Canonical(name) (the name without provider
//     prefixes, regions, Bedrock and Vertex version marks and gateway variants), and each
//     canonical name becomes one entry whose input capabilities are the union of its records'
//     (a flag or a modality in either source counts).
//   - Provider. An entry's provider is the first of Preferred that makes one of its records (a
//     maker is read from a name's vendor part: "x-ai/grok-4", "anthropic.claude-...", else from
//     the family its name starts with: "claude-", "gemini-", "grok-", see families), else the
//     first of Preferred that serves one; otherwise the alphabetically first provider serving it.
//   - Inputs again. When the provider is one of Preferred, the records it serves decide first:
//     what one of them claims counts, what they deny explicitly does not; what they are silent
//     about counts when other records claim it at least as often as they deny it (see inputsOf).
//   - Aliases. An entry "M-latest" also reads what the entry M reads, unless one of its own
//     records denies it (catalogues often list the alias without the flags they give M).
//   - Conflicts (docs/providers.md, "When the catalogues disagree"): a text-only listing by two or
//     more sources beats one source's media flag, and more text-only listings than flags beat the
//     flags (images, audio, video; never PDF files; the model's own provider's flag included: see
//     sourcesOf for what a source is; a dated snapshot listed as its model counts its model's
//     sources too); an OpenAI model reads PDF files only with images; a serving provider's own
//     records win for the models it serves (Service.ByHost, narrowing only). An entry a rule took
//     something from says so in its note, with the sources it counted.
//   - One-word ids ("auto", "small", "sonar": letters only) are filed under their full name with
//     their provider ("openrouter/auto", "kilo-auto/small"), one entry per full name, never
//     merged: the same word at two providers is two models.
//   - Hosts. Every serving provider of either catalogue (LiteLLM's provider names, of every mode,
//     and key prefixes; models.dev's directories) is in File.Hosts under the first path segment
//     that names it, so that a name says who serves it; a provider with at least hostMinRecords
//     records of its own, none reading more than text, is written as taking text only.
//
// Provider-level facts (formats, image limits, tool-result media, API family) are not taken from
// the catalogues: they are hand-curated in llmservices/default.json.
package catalogue

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/llmservices"
)

// Preferred is the order in which a model's provider is chosen among those serving or making it:
// model makers first, then the clouds and gateways with provider blocks of their own.
var Preferred = []string{
	"openai", "anthropic", "google", "xai", "mistral", "deepseek", "alibaba", "moonshotai", "zai",
	"minimax", "cohere", "meta", "bedrock", "azure", "groq", "together", "fireworks", "openrouter",
}

// Stats counts what a conversion read and wrote.
type Stats struct {
	LiteLLMKeys, LiteLLMChat         int // keys read; chat records among them
	ModelsDevFiles, ModelsDevChat    int // model files read (symlinks resolved); chat records
	ModelsDevUnknown, ModelsDevLinks int // files with no modalities to go by; broken symlinks
	Entries                          int // entries written
	Vision, File, Audio, Video       int // entries with each input capability
	LiteLLMEntries, ModelsDevEntries int // entries written with a record of each source
}

// Sources of records, as InputError.Source and Service.Source name them.
const (
	SourceModelsDev = "models.dev"
	SourceLiteLLM   = "litellm"
)

// InputError is a snapshot that cannot be read, or yields no chat model: Source says which
// (SourceModelsDev, SourceLiteLLM), so that a caller can name the file.
type InputError struct {
	Source string
	Err    error
}

func (e *InputError) Error() string { return "catalogue: " + e.Source + " snapshot: " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// record is one model as one source lists it.
type record struct {
	source   string // "models.dev" or "litellm"
	name     string
	full     string          // the name with its provider: LiteLLM's key, models.dev's "directory/model"
	segments []string        // the first path segments that name its serving provider
	inherits bool            // a models.dev file whose inputs come from its base_model
	hostOnly bool            // no model: a provider of LiteLLM's other kinds of model, for the host table
	provider string          // serving provider, registry spelling
	maker    string          // provider read from the name's vendor part, or ""
	inputs   map[string]bool // capabilities it claims
	denies   map[string]bool // capabilities it explicitly says it lacks
	outputs  map[string]bool
}

// Convert reads the two snapshots (the models.dev tarball and LiteLLM's JSON, each gzipped or
// not) and
// returns the registry file. about is written into the file's "about" field (its provenance).
// With curated non-nil, the file is standalone: curated's providers and services first, then
// every catalogue entry none of curated's ids and aliases takes (curated entries win), so that
// LLM_SERVICES_FILE can point at it; with curated nil it holds the catalogue alone. The output
// is deterministic: the same snapshots give the same bytes.
func Convert(modelsDevTarGz, liteLLMJSONGz []byte, about string, curated *llmservices.File) ([]byte, Stats, error) {
	var st Stats
	lite, notChat, err := readLiteLLM(liteLLMJSONGz, &st)
	if err != nil {
		return nil, st, &InputError{SourceLiteLLM, err}
	}
	if st.LiteLLMChat == 0 {
		return nil, st, &InputError{SourceLiteLLM, fmt.Errorf("no chat model among %d keys (not LiteLLM's model_prices_and_context_window.json?)", st.LiteLLMKeys)}
	}
	md, err := readModelsDev(modelsDevTarGz, lite, notChat, &st)
	if err != nil {
		return nil, st, &InputError{SourceModelsDev, err}
	}
	if st.ModelsDevChat == 0 {
		return nil, st, &InputError{SourceModelsDev, fmt.Errorf("no chat model among %d model files (want a tarball of the models.dev repository, with providers/P/models/M.toml)", st.ModelsDevFiles)}
	}
	records := slices.Concat(lite, md)
	services := entries(records)
	f := llmservices.File{About: about, Hosts: hosts(records)}
	taken := map[string]bool{}
	if curated != nil {
		f.Providers = curated.Providers
		f.Services = append(f.Services, curated.Services...)
		for _, s := range curated.Services {
			for _, k := range append([]string{s.ID}, s.Aliases...) {
				taken[strings.ToLower(strings.TrimSpace(k))] = true
			}
		}
	}
	for _, s := range services {
		if taken[s.ID] {
			continue
		}
		f.Services = append(f.Services, s)
		st.Entries++
		if strings.Contains(s.Source, SourceLiteLLM) {
			st.LiteLLMEntries++
		}
		if strings.Contains(s.Source, SourceModelsDev) {
			st.ModelsDevEntries++
		}
		for _, c := range s.Capabilities.Input {
			switch c {
			case contracts.CapVision:
				st.Vision++
			case contracts.CapFile:
				st.File++
			case contracts.CapAudio:
				st.Audio++
			case contracts.CapVideo:
				st.Video++
			}
		}
	}
	out, err := encode(&f)
	if err != nil {
		return nil, st, err
	}
	// What the worker cannot load is no conversion.
	if _, err := llmservices.Parse(out, "converted catalogue"); err != nil {
		return nil, st, err
	}
	return out, st, nil
}

// encode writes the file with one service per line, so that a new snapshot's diff shows the
// entries that changed.
func encode(f *llmservices.File) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	if f.About != "" {
		about, _ := json.Marshal(f.About)
		fmt.Fprintf(&b, "  \"about\": %s,\n", about)
	}
	if len(f.Providers) > 0 {
		b.WriteString("  \"providers\": {\n")
		for i, name := range slices.Sorted(maps.Keys(f.Providers)) {
			p, err := json.Marshal(f.Providers[name])
			if err != nil {
				return nil, err
			}
			k, _ := json.Marshal(name)
			fmt.Fprintf(&b, "    %s: %s", k, p)
			if i < len(f.Providers)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("  },\n")
	}
	if len(f.Hosts) > 0 {
		b.WriteString("  \"hosts\": {\n")
		for i, seg := range slices.Sorted(maps.Keys(f.Hosts)) {
			h, err := json.Marshal(f.Hosts[seg])
			if err != nil {
				return nil, err
			}
			k, _ := json.Marshal(seg)
			fmt.Fprintf(&b, "    %s: %s", k, h)
			if i < len(f.Hosts)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("  },\n")
	}
	b.WriteString("  \"services\": [\n")
	for i, s := range f.Services {
		line, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		b.WriteString("    ")
		b.Write(line)
		if i < len(f.Services)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes(), nil
}

// entries files the records under their canonical names and makes one service per name, sorted
// by id.
func entries(records []record) []llmservices.Service {
	groups := map[string][]record{}
	for _, r := range records {
		if r.hostOnly {
			continue
		}
		k := fileKey(r)
		if k == "" {
			continue
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]llmservices.Service, 0, len(groups))
	inputs := map[string]map[string]bool{}
	providers := map[string]string{}
	notes := map[string][]string{}
	for id, rs := range groups {
		provider, ranked := chooseProvider(rs)
		providers[id] = provider
		inputs[id], notes[id] = inputsOf(rs, provider, ranked)
	}
	// A dated snapshot that each of its sources lists as it lists the model (the same inputs) is
	// that model: the model's sources are its sources too, for the conflict rules (LiteLLM lists
	// gpt-4o-mini-search-preview-2025-03-11 alone, with the flags of gpt-4o-mini-search-preview
	// that four text-only listings beat). One its sources list otherwise is another model
	// (ministral-3b-2512 reads images, ministral-3b did not).
	for id, rs := range groups {
		base := llmservices.SnapshotOf(id)
		if base == "" || groups[base] == nil || !sameListing(rs, groups[base]) {
			continue
		}
		notes[id] = append(notes[id], conflictRules(inputs[id], slices.Concat(rs, groups[base]), providers[id])...)
	}
	// A "-latest" alias reads what its model reads, unless its own records deny it: LiteLLM lists
	// xai/grok-4-latest without saying it reads images, as it does xai/grok-4 (models.dev says so).
	for id, in := range inputs {
		base, ok := strings.CutSuffix(id, "-latest")
		if !ok || inputs[base] == nil {
			continue
		}
		for c := range inputs[base] {
			if !slices.ContainsFunc(groups[id], func(r record) bool { return r.denies[c] }) {
				in[c] = true
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(groups)) {
		rs := groups[id]
		provider := providers[id]
		in, outs, sources := inputs[id], map[string]bool{"text": true}, map[string]bool{}
		for _, r := range rs {
			maps.Copy(outs, r.outputs)
			sources[r.source] = true
		}
		s := llmservices.Service{ID: id, Provider: provider, Source: strings.Join(slices.Sorted(maps.Keys(sources)), "+")}
		if len(notes[id]) > 0 {
			s.Note = "conflict rules: " + strings.Join(notes[id], "; ")
		}
		for _, c := range contracts.Capabilities() {
			if in[c] {
				s.Capabilities.Input = append(s.Capabilities.Input, c)
			}
		}
		s.ByHost = byHost(rs, provider, in)
		for _, o := range []string{"text", "image", "audio", "video"} {
			if outs[o] {
				s.Capabilities.Output = append(s.Capabilities.Output, o)
			}
		}
		out = append(out, s)
	}
	return out
}

// fileKey is the entry a record is filed under: its canonical name, or for a one-word id ("auto",
// "small", "sonar"), which only the full name identifies, the name with its provider: the last two
// segments of its full name ("openrouter/openrouter/auto" → "openrouter/auto", models.dev's
// kilo/kilo-auto/small → "kilo-auto/small"), or "provider/word".
func fileKey(r record) string {
	k := llmservices.Canonical(r.name)
	if !isOneWord(k) {
		return k
	}
	full := strings.ToLower(r.full)
	parts := strings.Split(full, "/")
	if len(parts) >= 2 && parts[len(parts)-1] == k {
		return parts[len(parts)-2] + "/" + k
	}
	return r.provider + "/" + k
}

// isOneWord reports whether a canonical name is one word, letters only (see llmservices' names.go).
func isOneWord(k string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] < 'a' || k[i] > 'z' {
			return false
		}
	}
	return k != ""
}

// byHost is what each serving provider other than the entry's own says the model reads, where
// its own records deny part of what the entry reads (a serving provider's own record wins for the
// models it serves). It only narrows: a host's claim beyond the entry's inputs is not taken.
func byHost(rs []record, provider string, in map[string]bool) map[string][]string {
	claims, denies := map[string]map[string]bool{}, map[string]map[string]bool{}
	for _, r := range rs {
		if r.provider == provider {
			continue
		}
		if claims[r.provider] == nil {
			claims[r.provider], denies[r.provider] = map[string]bool{}, map[string]bool{}
		}
		maps.Copy(claims[r.provider], r.inputs)
		for c, d := range r.denies {
			if d {
				denies[r.provider][c] = true
			}
		}
	}
	var out map[string][]string
	for _, h := range slices.Sorted(maps.Keys(claims)) {
		var kept []string
		narrower := false
		for _, c := range contracts.Capabilities() {
			if !in[c] {
				continue
			}
			if denies[h][c] && !claims[h][c] {
				narrower = true
				continue
			}
			kept = append(kept, c)
		}
		if narrower {
			if out == nil {
				out = map[string][]string{}
			}
			out[h] = kept
		}
	}
	return out
}

// hostMinRecords is how many chat records a serving provider must have in the two catalogues
// together before "none of them reads X" is taken to mean its API takes no X.
const hostMinRecords = 5

// localHosts serve whatever model is loaded: their catalogue records (a few old text models) say
// nothing about the others.
var localHosts = map[string]bool{"ollama": true, "vllm": true, "lmstudio": true, "lemonade": true}

// hosts is the host table derived from the records: each serving provider of either catalogue,
// under every first path segment that names it (LiteLLM's provider names and key prefixes,
// models.dev's directories), with ["text"] as its inputs when it has at least hostMinRecords
// records and none of them claims an input beyond text.
func hosts(records []record) map[string]llmservices.Host {
	count, media := map[string]int{}, map[string]bool{}
	segs := map[string]string{}
	for _, r := range records {
		if !r.inherits { // what a base model reads elsewhere says nothing of this host
			count[r.provider]++
			if len(r.inputs) > 0 {
				media[r.provider] = true
			}
		}
		for _, seg := range r.segments {
			if _, taken := segs[seg]; !taken {
				segs[seg] = r.provider
			}
		}
	}
	out := make(map[string]llmservices.Host, len(segs))
	for seg, p := range segs {
		h := llmservices.Host{Provider: p}
		if count[p] >= hostMinRecords && !media[p] && !localHosts[p] {
			h.Inputs = []string{contracts.CapText}
		}
		out[seg] = h
	}
	return out
}

// inputsOf decides an entry's input capabilities from its records, and says which conflict rule
// took one away (notes, for the entry's note: `worker models explain` shows it). When its
// provider is one of Preferred (ranked), the records that provider serves (first-party) decide
// first: a capability one of them claims counts; one they deny explicitly (a models.dev modality
// list without it, a LiteLLM flag set to false, a LiteLLM supported_modalities without it) does
// not. Otherwise (the first-party records are silent, or there are none) the other records vote:
// a capability counts when at least one claims it and no more deny it than claim it, so that one
// gateway's slip (audio for a vision model that seven other gateways list without) does not make
// a capability. Then the conflict rules (conflictRules).
func inputsOf(rs []record, provider string, ranked bool) (map[string]bool, []string) {
	in := map[string]bool{contracts.CapText: true}
	for _, c := range contracts.Capabilities() {
		firstClaims, firstDenies := false, false
		claims, denies := 0, 0
		for _, r := range rs {
			if ranked && r.provider == provider {
				firstClaims = firstClaims || r.inputs[c]
				firstDenies = firstDenies || r.denies[c]
				continue
			}
			if r.inputs[c] {
				claims++
			} else if r.denies[c] {
				denies++
			}
		}
		if firstClaims || !firstDenies && claims > 0 && claims >= denies {
			in[c] = true
		}
	}
	return in, conflictRules(in, rs, provider)
}

// conflictRules takes from in what the conflict rules deny (docs/providers.md, "When the
// catalogues disagree") and says why, one note per capability taken: text-only listings by two
// or more sources beat a media flag of fewer (sourcesOf), and an OpenAI model reads PDF files only
// with images.
func conflictRules(in map[string]bool, rs []record, provider string) []string {
	var notes []string
	for _, c := range []string{contracts.CapVision, contracts.CapAudio, contracts.CapVideo} {
		if !in[c] {
			continue
		}
		if flag, without := sourcesOf(rs, c); len(without) >= 2 && len(without) > len(flag) {
			delete(in, c)
			notes = append(notes, fmt.Sprintf("%s: listed without it by %d sources (%s), flagged by %d (%s): text-only listings by two or more sources beat a media flag of fewer",
				c, len(without), strings.Join(without, ", "), len(flag), strings.Join(flag, ", ")))
		}
	}
	// OpenAI's API takes a PDF file part only with image input (it reads the pages as images);
	// Azure OpenAI serves the same API (codex-mini, which Azure's listings give no images).
	if (provider == "openai" || provider == "azure") && !in[contracts.CapVision] && in[contracts.CapFile] {
		delete(in, contracts.CapFile)
		notes = append(notes, "file: an OpenAI model reads PDF files only with images")
	}
	return notes
}

// sameListing reports whether every source of the records rs (a dated snapshot's) also lists the
// model of the records of (its undated model), claiming the same inputs for both.
func sameListing(rs, of []record) bool {
	claims := func(rs []record) map[string]map[string]bool {
		out := map[string]map[string]bool{}
		for _, r := range rs {
			if len(r.segments) == 0 {
				continue
			}
			k := r.source + ":" + r.segments[0]
			if out[k] == nil {
				out[k] = map[string]bool{}
			}
			maps.Copy(out[k], r.inputs)
		}
		return out
	}
	mine, theirs := claims(rs), claims(of)
	for k, in := range mine {
		if theirs[k] == nil || !maps.Equal(in, theirs[k]) {
			return false
		}
	}
	return len(mine) > 0
}

// sourcesOf lists the sources that flag capability c for a model and those that list the model
// without it (and flag it nowhere), sorted. A source is one catalogue's listing by one serving
// provider as that catalogue names it ("litellm:openai", "models.dev:kilo"): several keys of one
// provider in one catalogue filed under the model are one source, the same provider in both
// catalogues two. A
// models.dev file that takes its modalities from its base model (base_model) is its provider's
// listing of that model as the maker lists it.
//
// The rule it serves: a text-only listing by two or more sources beats one source's media flag;
// in general, when at least two sources list the model without a capability and they outnumber
// the sources that flag it, the flags lose (two against two leave them standing). It holds
// against the model's own provider's flag too (LiteLLM's image flag for
// gpt-4o-mini-search-preview, which four gateways list as text only). Never for PDF files:
// LiteLLM has no PDF modality and models.dev omits "pdf" for many models that read PDFs, so
// their silence is no denial.
func sourcesOf(rs []record, c string) (flag, without []string) {
	flags, lists := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		if len(r.segments) == 0 {
			continue
		}
		k := r.source + ":" + r.segments[0]
		if r.inputs[c] {
			flags[k] = true
		} else if r.denies[c] {
			lists[k] = true
		}
	}
	maps.DeleteFunc(lists, func(k string, _ bool) bool { return flags[k] })
	return slices.Sorted(maps.Keys(flags)), slices.Sorted(maps.Keys(lists))
}

// chooseProvider is the first of Preferred that makes one of the records, else the first that
// serves one (ranked), else the alphabetically first serving provider.
func chooseProvider(rs []record) (provider string, ranked bool) {
	makes, serves := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		serves[r.provider] = true
		if r.maker != "" {
			makes[r.maker] = true
		}
	}
	// The maker first: kimi-k2-thinking is Moonshot's, though Alibaba (earlier in Preferred)
	// serves it too.
	for _, has := range []map[string]bool{makes, serves} {
		for _, p := range Preferred {
			if has[p] {
				return p, true
			}
		}
	}
	var serving []string
	for _, r := range rs {
		serving = append(serving, r.provider)
	}
	slices.Sort(serving)
	return serving[0], false
}

// modality names of both sources → input capabilities.
var modalityCap = map[string]string{
	"text": contracts.CapText, "image": contracts.CapVision, "pdf": contracts.CapFile,
	"audio": contracts.CapAudio, "video": contracts.CapVideo,
}

// liteLLMEntry is the part of a LiteLLM model entry the conversion reads.
type liteLLMEntry struct {
	Provider         string   `json:"litellm_provider"`
	Mode             string   `json:"mode"`
	Vision           *bool    `json:"supports_vision"`
	ImageInput       *bool    `json:"supports_image_input"`
	PDF              *bool    `json:"supports_pdf_input"`
	Audio            *bool    `json:"supports_audio_input"`
	Video            *bool    `json:"supports_video_input"`
	Modalities       []string `json:"supported_modalities"`
	OutputModalities []string `json:"supported_output_modalities"`
}

// liteLLMProvider maps LiteLLM's provider names to the serving provider and, where the name
// says it, the maker.
func liteLLMProvider(p string) (serving, maker string) {
	switch p {
	case "gemini", "vertex_ai-language-models":
		return "google", "google"
	case "vertex_ai":
		return "vertex", ""
	case "bedrock", "bedrock_converse", "bedrock_mantle":
		return "bedrock", ""
	case "azure", "azure_ai":
		return "azure", ""
	case "dashscope":
		return "alibaba", "alibaba"
	case "together_ai":
		return "together", ""
	case "fireworks_ai":
		return "fireworks", ""
	case "moonshot":
		return "moonshotai", "moonshotai"
	case "codestral":
		return "mistral", "mistral"
	case "meta_llama":
		return "meta", "meta"
	case "cohere_chat":
		return "cohere", "cohere"
	}
	if m, ok := strings.CutPrefix(p, "vertex_ai-"); ok {
		return "vertex", makerOf(strings.TrimSuffix(m, "_models"))
	}
	if slices.Contains(Preferred, p) {
		return p, p
	}
	return p, ""
}

// notChatModes are LiteLLM's modes of models that are never chat models. Its image_generation
// also holds conversational image models (gemini-2.5-flash-image), which models.dev lists as
// chat models that also draw: they stay.
var notChatModes = map[string]bool{
	"embedding": true, "rerank": true, "audio_transcription": true, "audio_speech": true, "moderation": true,
}

// readLiteLLM reads LiteLLM's chat records, and the canonical names of the keys it lists as
// another kind of model (notChatModes).
func readLiteLLM(gz []byte, st *Stats) ([]record, map[string]bool, error) {
	data, err := gunzip(gz)
	if err != nil {
		return nil, nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object of models: %w", err)
	}
	var out []record
	notChat := map[string]bool{}
	otherHosts := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(raw)) {
		if key == "sample_spec" {
			continue
		}
		st.LiteLLMKeys++
		var e liteLLMEntry
		if err := json.Unmarshal(raw[key], &e); err != nil {
			continue // an entry of another shape is no model
		}
		if e.Mode != "chat" && e.Mode != "responses" {
			if notChatModes[e.Mode] {
				notChat[llmservices.Canonical(key)] = true
			}
			if p := strings.ToLower(e.Provider); p != "" && !strings.ContainsAny(p, " :") {
				serving, _ := liteLLMProvider(p)
				otherHosts[p] = serving
			}
			continue
		}
		r := record{source: "litellm", name: key, full: key, inputs: map[string]bool{}, denies: map[string]bool{}, outputs: map[string]bool{}}
		r.provider, r.maker = liteLLMProvider(e.Provider)
		r.segments = []string{strings.ToLower(e.Provider)}
		if seg, _, ok := strings.Cut(strings.ToLower(key), "/"); ok && seg != r.segments[0] {
			if serving, _ := liteLLMProvider(seg); serving == r.provider {
				r.segments = append(r.segments, seg)
			}
		}
		if m := nameMaker(key); m != "" { // the name says whose it is: dashscope/kimi-k2 is Moonshot's
			r.maker = m
		}
		for _, m := range e.Modalities {
			if c, ok := modalityCap[m]; ok && c != contracts.CapText {
				r.inputs[c] = true
			}
		}
		for c, flags := range map[string][]*bool{
			contracts.CapVision: {e.Vision, e.ImageInput}, contracts.CapFile: {e.PDF},
			contracts.CapAudio: {e.Audio}, contracts.CapVideo: {e.Video},
		} {
			for _, f := range flags {
				if f != nil && *f {
					r.inputs[c] = true
				}
			}
			// A false flag, or a modality list without the modality (PDF is no modality there),
			// denies it unless something else claims it.
			if !r.inputs[c] && (slices.ContainsFunc(flags, func(f *bool) bool { return f != nil && !*f }) ||
				len(e.Modalities) > 0 && c != contracts.CapFile) {
				r.denies[c] = true
			}
		}
		if len(e.OutputModalities) > 0 && !slices.Contains(e.OutputModalities, "text") {
			continue // speaks or draws only
		}
		for _, o := range e.OutputModalities {
			r.outputs[o] = true
		}
		prune(r.inputs)
		st.LiteLLMChat++
		out = append(out, r)
	}
	// Providers of other kinds of model still serve under their names: a record without inputs
	// puts them in the host table.
	for _, p := range slices.Sorted(maps.Keys(otherHosts)) {
		out = append(out, record{source: "litellm", provider: otherHosts[p], segments: []string{p}, inherits: true, hostOnly: true})
	}
	return out, notChat, nil
}

// prune drops false entries, so that maps.Copy of a record's inputs only adds what it claims.
func prune(m map[string]bool) {
	maps.DeleteFunc(m, func(_ string, v bool) bool { return !v })
}

// modelsDevModel is the part of a models.dev model file the conversion reads.
type modelsDevModel struct {
	BaseModel  string `toml:"base_model"`
	Modalities *struct {
		Input  []string `toml:"input"`
		Output []string `toml:"output"`
	} `toml:"modalities"`
}

// modelsDevProvider maps models.dev provider directories to registry provider names.
var modelsDevProvider = map[string]string{
	"google-vertex": "vertex", "google-vertex-anthropic": "vertex", "amazon-bedrock": "bedrock",
	"azure-cognitive-services": "azure", "alibaba-cn": "alibaba", "togetherai": "together",
	"moonshotai-cn": "moonshotai", "zhipuai": "zai", "minimax-cn": "minimax", "fireworks-ai": "fireworks",
	"llama": "meta",
}

// modelsDevMaker is the maker a models.dev provider directory implies.
var modelsDevMaker = map[string]string{"google-vertex": "google", "google-vertex-anthropic": "anthropic"}

func readModelsDev(tgz []byte, lite []record, notChat map[string]bool, st *Stats) ([]record, error) {
	files, err := untar(tgz)
	if err != nil {
		return nil, err
	}
	files = underTopFolder(files)
	type parsed struct {
		provider, name string
		m              modelsDevModel
	}
	var models []parsed
	byPath := map[string]*modelsDevModel{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		content := files[p]
		rest, ok := strings.CutPrefix(p, "providers/")
		if !ok || !strings.HasSuffix(p, ".toml") {
			continue
		}
		provider, modelPath, ok := strings.Cut(rest, "/models/")
		if !ok || strings.Contains(provider, "/") {
			continue
		}
		if content == nil {
			st.ModelsDevLinks++
			continue
		}
		st.ModelsDevFiles++
		var m modelsDevModel
		if _, err := toml.Decode(string(content), &m); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		models = append(models, parsed{provider: provider, name: strings.TrimSuffix(modelPath, ".toml"), m: m})
	}
	for i := range models {
		byPath[models[i].provider+"/"+models[i].name] = &models[i].m
	}
	// What each canonical name's records claim on their own, for base models without a file.
	direct := map[string]map[string]bool{}
	claim := func(name string, inputs map[string]bool) {
		k := llmservices.Canonical(name)
		if direct[k] == nil {
			direct[k] = map[string]bool{}
		}
		maps.Copy(direct[k], inputs)
	}
	liteChat := map[string]bool{}
	for _, r := range lite {
		if r.hostOnly {
			continue
		}
		claim(r.name, r.inputs)
		liteChat[llmservices.Canonical(r.name)] = true
	}
	for _, pm := range models {
		if pm.m.Modalities != nil && slices.Contains(pm.m.Modalities.Output, "text") {
			claim(pm.name, modelsDevInputs(pm.m.Modalities.Input))
		}
	}
	var out []record
	for _, pm := range models {
		var inputs, denies map[string]bool
		chat := false
		switch {
		case pm.m.Modalities != nil:
			chat = slices.Contains(pm.m.Modalities.Input, "text") && slices.Contains(pm.m.Modalities.Output, "text")
			inputs = modelsDevInputs(pm.m.Modalities.Input)
			denies = map[string]bool{}
			for _, c := range contracts.Capabilities() {
				denies[c] = !inputs[c] && c != contracts.CapText
			}
		case pm.m.BaseModel != "":
			if base, ok := byPath[pm.m.BaseModel]; ok && base != nil && base.Modalities != nil {
				chat = slices.Contains(base.Modalities.Input, "text") && slices.Contains(base.Modalities.Output, "text")
				inputs = modelsDevInputs(base.Modalities.Input)
			} else if _, m, ok := strings.Cut(pm.m.BaseModel, "/"); ok && direct[llmservices.Canonical(m)] != nil {
				chat, inputs = true, maps.Clone(direct[llmservices.Canonical(m)])
			}
		}
		if pm.m.Modalities == nil && inputs == nil {
			st.ModelsDevUnknown++
			continue
		}
		// models.dev writes an embedding or rerank model as text in, text out: LiteLLM's mode
		// says what it is, unless LiteLLM also lists it as a chat model.
		if k := llmservices.Canonical(pm.name); !chat || notChat[k] && !liteChat[k] {
			continue
		}
		r := record{source: "models.dev", name: pm.name, full: pm.provider + "/" + pm.name, inputs: inputs, denies: denies, outputs: map[string]bool{}, inherits: pm.m.Modalities == nil}
		r.provider = pm.provider
		r.segments = []string{strings.ToLower(pm.provider)}
		if p, ok := modelsDevProvider[pm.provider]; ok {
			r.provider = p
		}
		r.maker = modelsDevMaker[pm.provider]
		if r.maker == "" && slices.Contains(Preferred, r.provider) && !isHost(r.provider) {
			r.maker = r.provider
		}
		if m := nameMaker(pm.name); m != "" { // the name says whose it is: alibaba's kimi-k2 is Moonshot's
			r.maker = m
		}
		if vendor, _, ok := strings.Cut(pm.m.BaseModel, "/"); ok && r.maker == "" {
			r.maker = makerOf(vendor) // base_model "openai/gpt-5": made by OpenAI
		}
		if pm.m.Modalities != nil {
			for _, o := range pm.m.Modalities.Output {
				r.outputs[o] = true
			}
		}
		prune(r.inputs)
		st.ModelsDevChat++
		out = append(out, r)
	}
	return out, nil
}

// underTopFolder strips the one top-level folder a repository archive puts everything in
// (GitHub's "models.dev-f3fc692/providers/..."), when there is no providers/ at the top.
func underTopFolder(files map[string][]byte) map[string][]byte {
	top := ""
	for p := range files {
		if strings.HasPrefix(p, "providers/") {
			return files
		}
		dir, _, ok := strings.Cut(p, "/")
		if !ok {
			continue // a file at the top (pax_global_header): no folder
		}
		if top != "" && dir != top {
			return files
		}
		top = dir
	}
	if top == "" {
		return files
	}
	out := make(map[string][]byte, len(files))
	for p, b := range files {
		if rest, ok := strings.CutPrefix(p, top+"/"); ok {
			out[rest] = b
		}
	}
	return out
}

// isHost reports whether a provider serves other makers' models rather than its own.
func isHost(p string) bool {
	switch p {
	case "bedrock", "azure", "vertex", "groq", "together", "fireworks", "openrouter":
		return true
	}
	return false
}

func modelsDevInputs(list []string) map[string]bool {
	in := map[string]bool{}
	for _, m := range list {
		if c, ok := modalityCap[m]; ok && c != contracts.CapText {
			in[c] = true
		}
	}
	return in
}

// makers maps the vendor part of a model name to the provider that makes the model.
var makers = map[string]string{
	"openai": "openai", "anthropic": "anthropic", "google": "google", "x-ai": "xai", "xai": "xai",
	"mistralai": "mistral", "mistral": "mistral", "deepseek": "deepseek", "deepseek-ai": "deepseek",
	"qwen": "alibaba", "alibaba": "alibaba", "moonshotai": "moonshotai", "z-ai": "zai", "zai-org": "zai",
	"zai": "zai", "thudm": "zai", "minimax": "minimax", "minimaxai": "minimax", "cohere": "cohere",
	"meta-llama": "meta", "meta": "meta", "llama": "meta",
}

// families maps the start of a model's own name to its maker, for names without a vendor part.
var families = []struct{ prefix, maker string }{
	{"gpt-", "openai"}, {"chatgpt-", "openai"}, {"o1", "openai"}, {"o3", "openai"}, {"o4-", "openai"},
	{"claude-", "anthropic"}, {"gemini-", "google"}, {"gemma-", "google"}, {"grok-", "xai"},
	{"mistral-", "mistral"}, {"pixtral-", "mistral"}, {"codestral-", "mistral"}, {"ministral-", "mistral"},
	{"magistral-", "mistral"}, {"devstral-", "mistral"}, {"voxtral-", "mistral"},
	{"deepseek-", "deepseek"}, {"qwen", "alibaba"}, {"qwq-", "alibaba"}, {"kimi-", "moonshotai"},
	{"glm-", "zai"}, {"minimax-", "minimax"}, {"command-", "cohere"}, {"llama-", "meta"}, {"llama3", "meta"}, {"llama4", "meta"},
}

// familyMaker is the maker whose model family a name starts with, or "".
func familyMaker(name string) string {
	for _, f := range families {
		if strings.HasPrefix(name, f.prefix) {
			return f.maker
		}
	}
	return ""
}

func makerOf(vendor string) string { return makers[strings.ToLower(vendor)] }

// nameMaker reads the maker from a model name's vendor part: the path segment before the model
// ("openrouter/x-ai/grok-4") or a Bedrock vendor prefix ("us.anthropic.claude-...").
func nameMaker(name string) string {
	name = strings.ToLower(name)
	last := name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		last = name[i+1:]
		seg := name[:i]
		if j := strings.LastIndexByte(seg, '/'); j >= 0 {
			seg = seg[j+1:]
		}
		if m := makerOf(seg); m != "" {
			return m
		}
	}
	maker := ""
	for {
		i := strings.IndexByte(last, '.')
		if i <= 0 || strings.ContainsAny(last[:i], "0123456789-_") {
			if maker == "" {
				maker = familyMaker(last)
			}
			return maker
		}
		if m := makerOf(last[:i]); m != "" {
			maker = m
		}
		last = last[i+1:]
	}
}

// gunzip decompresses b when it is gzipped, and returns it as it is otherwise.
func gunzip(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

// untar returns the regular files of a gzipped tarball by path; a symlink maps to its target's
// content (nil when the target is not in the tarball).
func untar(tgz []byte) (map[string][]byte, error) {
	data, err := gunzip(tgz)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	links := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch h.Typeflag {
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				return nil, err
			}
			files[name] = b
		case tar.TypeSymlink:
			links[name] = path.Join(path.Dir(name), h.Linkname)
		}
	}
	for name, target := range links {
		for range 8 { // a link to a link
			if next, ok := links[target]; ok {
				target = next
			}
		}
		files[name] = files[target]
	}
	return files, nil
}
