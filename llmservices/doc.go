// Package llmservices is the capability registry: which inputs (text, vision, file, audio, video)
// each LLM service accepts, so that routing sends a model only what it can read.
//
// A registry is loaded from a JSON file:
//
//	{"services": [
//	  {"id": "gpt-4o", "capabilities": {"input": ["text", "vision", "file"], "output": ["text"]}},
//	  {"id": "claude-sonnet-4", "aliases": ["claude-sonnet-4-20250514"], "provider": "anthropic",
//	   "note": "free text", "capabilities": {"input": ["text", "vision", "file"], "output": ["text"]}}
//	]}
//
// Input capabilities are contracts.CapText, CapVision, CapFile, CapAudio and CapVideo; output
// capabilities are text, image, audio and video. Every service reads text, listed or not. Ids and
// aliases are matched exactly, ignoring case and surrounding spaces: "gpt-4o-2024-08-06" is a
// different service from "gpt-4o" unless it is listed as an alias. Anything that cannot be looked
// up — an unknown id, a nil registry — is text only: a description is always safer than a part
// the model's API rejects.
//
// An optional "providers" block gives each provider's accepted formats, image limits and
// toolResultMedia ("inline" or "followUp": whether the model takes a tool result's media inside
// the tool result, as Gemini 3 does, or in a following user turn, as Gemini 2.x); a service's own
// "formats", "imageLimits" and "toolResultMedia" replace its provider's. Formats returns them as
// routing.Formats.
//
// Default returns the registry embedded from default.json (the same content as the deployment's
// config/llmservices.json); Load reads a file; a Watcher reloads a file when it changes and keeps
// the last good registry when a change is invalid. A Registry is immutable and safe for
// concurrent use.
package llmservices
