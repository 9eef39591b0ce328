// Package llmservices is the capability registry: which inputs (text, vision, file, audio, video)
// each LLM model accepts, and which formats and image limits its provider's API takes, so that
// routing sends a model only what it can read.
//
// A registry is loaded from a JSON file:
//
//	{"extends": "builtin",
//	 "providers": {"acme": {"family": "openai", "formats": {"image": ["png", "jpeg"], "file": []}}},
//	 "services": [
//	  {"id": "gpt-4o", "capabilities": {"input": ["text", "vision", "file"], "output": ["text"]}},
//	  {"id": "claude-sonnet-4", "aliases": ["claude-sonnet-4-20250514"], "provider": "anthropic",
//	   "note": "free text", "capabilities": {"input": ["text", "vision", "file"], "output": ["text"]}}
//	]}
//
// Input capabilities are contracts.CapText, CapVision, CapFile, CapAudio and CapVideo; output
// capabilities are text, image, audio and video. Every service reads text, listed or not.
//
// The built-in registry (Default) has two layers: the hand-curated entries and provider blocks of
// default.json over the catalogue of catalogue.json, which the catalogue package converts from
// the public models.dev and LiteLLM catalogues (`go generate ./llmservices`); curated entries win.
// A file with "extends": "builtin" is layered over the built-in registry (its entries and
// provider blocks win); without it a file is the whole registry. Fields the worker does not use
// (a runtime's own settings kept beside each model) do not stop loading: Warnings names them.
//
// Names are resolved as runtimes write them (names.go: provider prefixes, regions and inference
// profiles, Bedrock ARNs and versions, Vertex versions, dated snapshots, -latest, quantisation
// suffixes, gateway variants, case; local.go: Ollama tags and Hugging Face ids through the
// curated family table); the most specific known entry wins and Resolve says how it was reached.
// One-word ids ("auto", "small") match only as written. An entry with "like": NAME takes the
// facts of the entry NAME resolves to (an Azure deployment, an application inference profile)
// and overrides what it lists itself. A catalogue's "hosts" table names the provider each first
// path segment stands for, and what a text-only host takes; an entry's "byHost" what a serving
// provider's own records say it reads there. Anything that cannot be
// resolved — an unknown name, a nil registry — is text only: a description is always safer than
// a part the model's API rejects. Decide gives the decision as a get_artifact reply carries it.
//
// An optional "providers" block gives each provider's accepted formats, image limits, API family
// and toolResultMedia ("inline" or "followUp": whether the model takes a tool result's media
// inside the tool result, as Gemini 3 does, or in a following user turn, as Gemini 2.x); a
// service's own "formats", "imageLimits" and "toolResultMedia" replace its provider's. Formats
// returns them as routing.Formats: those of the provider the name says serves the model
// (Entry.ServedBy) when the registry has it, else those of the entry's provider.
//
// Load reads a file; a Watcher reloads a file when it changes and keeps the last good registry
// when a change is invalid. A Registry is immutable and safe for concurrent use.
package llmservices
