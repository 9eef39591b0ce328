package llmservices

import "strings"

// Local runtimes: Ollama tags and Hugging Face ids (what vLLM, TGI, SGLang and LM Studio serve).
//
// The family table is the curated entries "ollama/FAMILY" of default.json: each names its model
// family as Ollama's library does, with its source (the library page, when it was read, and that
// it was read from a stored copy, not the live page) in "source", and the Hugging Face organisation and model name of its weights as aliases
// ("qwen/qwen2.5-vl"). An entry "ollama/FAMILY:SIZE" states a size that reads less than its
// family (gemma3:1b is text only).
//
// An Ollama tag resolves so:
//
//   - "ollama/llava:13b", "ollama_chat/llava", "ollama:llava" (the prefix says Ollama serves it):
//     "ollama/FAMILY:TAG" if listed, then "ollama/FAMILY:SIZE" (the tag's part before its first
//     "-": "4b" of "4b-it-qat"), then "ollama/FAMILY"; before any other rule.
//   - "llava", "llava:13b", "gemma3" (no prefix): the same, once nothing else matched.
//
// The provider serving it is "ollama" (its provider block: what Ollama's API takes).
//
// A Hugging Face id "org/Model-7B-Instruct-AWQ", after host prefixes ("hosted_vllm/",
// "lm_studio/", ...), resolves, once nothing else matched, by its organisation and model name:
// the name without quantisation and packaging parts ("awq", "gguf", "fp8", "q4_k_m", "qat", ...),
// variant parts ("instruct", "it", "chat", "hf") and dates ("2503"), first with its size
// ("google/gemma-3-1b"), then without ("google/gemma-3"), sizes being "7b", "0.5b", "270m",
// "17b-16e", "a3b". A re-packager's organisation (lmstudio-community, unsloth, bartowski,
// mlx-community, ...) does not name the model's maker: the model name alone is then matched
// against the family table's. The provider serving it is the one its host prefix names, else
// "vllm" (an OpenAI-compatible local server: no PDF file parts).

// ollamaPrefixes are the spellings that say Ollama serves a model.
var ollamaPrefixes = []string{"ollama/", "ollama_chat/", "ollama:"}

// repackagers publish other makers' weights (quantised, converted): their organisation does not
// name the maker.
var repackagers = map[string]bool{
	"lmstudio-community": true, "unsloth": true, "bartowski": true, "mlx-community": true,
	"thebloke": true, "second-state": true, "ggml-org": true, "quantfactory": true, "redhatai": true,
	"neuralmagic": true, "nm-testing": true, "casperhansen": true,
}

// ollama resolves an Ollama tag: with prefixed, a name written with an Ollama prefix; without, a
// bare "family[:tag]".
func (r *Registry) ollama(name string, prefixed bool, t *trace) (*entry, string, bool) {
	rest, had := "", false
	for _, p := range ollamaPrefixes {
		if s, ok := strings.CutPrefix(name, p); ok {
			rest, had = s, true
			break
		}
	}
	if had != prefixed {
		return nil, "", false
	}
	if !had {
		rest = name
	}
	if rest == "" || strings.ContainsAny(rest, "/@ ") {
		return nil, "", false
	}
	family, tag, _ := strings.Cut(rest, ":")
	if family == "" || strings.Contains(tag, ":") {
		return nil, "", false
	}
	if tag != "" {
		if e, ok := r.families[family+":"+tag]; ok {
			t.rule("Ollama tag (family table)", e.id)
			return e, e.id, true
		}
		if size, _, cut := strings.Cut(tag, "-"); cut && size != "" {
			if e, ok := r.families[family+":"+size]; ok {
				t.rule("Ollama tag (family table)", e.id)
				return e, e.id, true
			}
		}
	}
	if e, ok := r.families[family]; ok {
		t.rule("Ollama tag (family table)", e.id)
		return e, e.id, true
	}
	if had && t != nil { // said to be Ollama's: say what the table was asked
		t.rule("Ollama tag (family table)", "ollama/"+family)
	}
	return nil, "", false
}

// ollamaTag reports whether a bare name is written as an Ollama tag, "family:tag", which the
// family table decides before the catalogue (models.dev lists some tags under Ollama's cloud):
// one colon, no path, and not "provider:model" (a known provider before a tag that starts with a
// letter: "mistral:pixtral-large-latest"; "mistral:7b" is a tag).
func ollamaTag(name string, w *walker) bool {
	family, tag, ok := strings.Cut(name, ":")
	if !ok || family == "" || tag == "" || strings.ContainsAny(name, "/@ ") || strings.Contains(tag, ":") {
		return false
	}
	if bedrockVersion(name, true) > 0 {
		return false // "anthropic.claude-...-v1:0"
	}
	return w.host(family) == "" || isDigit(tag[0])
}

// localHost is the host of a family table entry reached without one: "ollama" by its own id,
// "vllm" by a Hugging Face alias ("openbmb/minicpm-v-2_6"); "" for any other entry.
func localHost(e *entry, key string) string {
	switch {
	case !isLocal(e):
		return ""
	case strings.HasPrefix(key, "ollama/"):
		return "ollama"
	}
	return "vllm"
}

// huggingFace resolves a Hugging Face id by organisation and model name: the entry, the provider
// serving it and the form that matched.
func (r *Registry) huggingFace(name string, t *trace) (*entry, string, string, bool) {
	host, s := "", name
	for strings.Count(s, "/") > 1 {
		seg, rest, _ := strings.Cut(s, "/")
		if host == "" {
			host = (&walker{hosts: r.hosts}).host(seg)
		}
		s = rest
	}
	org, model, ok := strings.Cut(s, "/")
	if !ok || org == "" || model == "" || strings.ContainsAny(model, ":@ ") {
		return nil, "", "", false
	}
	if !repackagers[org] && !r.hfOrgs[org] {
		return nil, "", "", false // no family of the table is published by org
	}
	if host == "" {
		host = "vllm"
	}
	sized, stem := hfStem(model)
	forms := []string{org + "/" + sized}
	if stem != sized {
		forms = append(forms, org+"/"+stem)
	}
	for _, key := range forms {
		if e, ok := r.byKey[key]; ok && isLocal(e) {
			t.rule("Hugging Face id (organisation and model name)", key)
			return e, host, key, true
		}
	}
	if repackagers[org] {
		for _, stemForm := range []string{sized, stem} {
			if e, ok := r.stems[stemForm]; ok {
				t.rule("Hugging Face id (model name, re-packaged)", stemForm)
				return e, host, stemForm, true
			}
		}
	}
	if t != nil {
		t.rule("Hugging Face id (organisation and model name)", forms[len(forms)-1])
	}
	return nil, "", "", false
}

// isLocal reports whether e is a row of the local family table.
func isLocal(e *entry) bool { return strings.HasPrefix(e.id, "ollama/") }

// localOrgs are the Hugging Face organisations of the family table's aliases ("qwen" of
// "qwen/qwen2.5-vl").
func localOrgs(r *Registry) map[string]bool {
	orgs := map[string]bool{}
	for _, e := range r.entries {
		if isLocal(e) {
			for _, a := range e.aliases {
				if org, _, ok := strings.Cut(lookupKey(a), "/"); ok {
					orgs[org] = true
				}
			}
		}
	}
	return orgs
}

// localFamilies maps each family table entry's name without "ollama/" ("llava", "gemma3:1b") to
// the entry that resolves it: the registry's entry for "ollama/NAME", whichever layer holds it.
func localFamilies(r *Registry) map[string]*entry {
	families := map[string]*entry{}
	for k, e := range r.byKey {
		if name, ok := strings.CutPrefix(k, "ollama/"); ok && name != "" {
			families[name] = e
		}
	}
	return families
}

// localStems maps the model name of each family's Hugging Face aliases ("qwen2.5-vl" of
// "qwen/qwen2.5-vl") to the family, for re-packaged weights.
func localStems(r *Registry) map[string]*entry {
	stems := map[string]*entry{}
	for _, e := range r.entries {
		if !isLocal(e) {
			continue
		}
		for _, a := range e.aliases {
			if _, stem, ok := strings.Cut(lookupKey(a), "/"); ok && stem != "" {
				if _, taken := stems[stem]; !taken {
					stems[stem] = e
				}
			}
		}
	}
	return stems
}

// hfDropped are the parts of a Hugging Face model name that do not change what it reads:
// variants, packaging and quantisation.
var hfDropped = map[string]bool{
	"instruct": true, "it": true, "chat": true, "hf": true, "qat": true, "awq": true, "gguf": true,
	"gptq": true, "fp8": true, "fp16": true, "bf16": true, "int4": true, "int8": true, "bnb": true,
	"4bit": true, "8bit": true, "mlx": true, "dynamic": true, "w4a16": true, "w8a8": true, "exl2": true,
}

// hfStem is a Hugging Face model name without variant, packaging, quantisation and date parts:
// with its size ("gemma-3-1b") and without ("gemma-3").
func hfStem(model string) (sized, stem string) {
	var withSize, without []string
	for _, part := range strings.Split(model, "-") {
		switch {
		case part == "" || hfDropped[part] || isQuantLevel(part) || len(part) == 4 && allDigits(part):
			continue
		case isSize(part):
			withSize = append(withSize, part)
			continue
		}
		withSize = append(withSize, part)
		without = append(without, part)
	}
	return strings.Join(withSize, "-"), strings.Join(without, "-")
}

// isSize: "7b", "0.5b", "270m", "16e" (experts), "a3b" (active parameters).
func isSize(p string) bool {
	p = strings.TrimPrefix(p, "a")
	if len(p) < 2 {
		return false
	}
	unit := p[len(p)-1]
	if unit != 'b' && unit != 'm' && unit != 'e' && unit != 'k' {
		return false
	}
	n := p[:len(p)-1]
	whole, frac, dot := strings.Cut(n, ".")
	return allDigits(whole) && (!dot || allDigits(frac))
}

// isQuantLevel: llama.cpp quantisation levels, "q4_0", "q4_k_m", "q8_0", "iq4_xs".
func isQuantLevel(p string) bool {
	p = strings.TrimPrefix(p, "i")
	return len(p) >= 2 && p[0] == 'q' && isDigit(p[1])
}
