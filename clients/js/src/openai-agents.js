// OpenAI Agents JS (@openai/agents) function tools over the worker: what get_artifact and
// get_history_image return is the tool output the SDK sends as media (`image` and `file` outputs
// become input_image and input_file in the function call's output).
import { tool } from "@openai/agents";
import { callTool, resultParts, toolSpecs } from "./tools.js";

/**
 * The function tools get_artifact and get_history_image (in that order) for an Agent's `tools`,
 * results fitted to opts.serviceId (or opts.capabilities).
 * @param {import("./index.js").WorkerClient} worker
 * @param {{serviceId?: string, capabilities?: string[], locale?: "en" | "zh", timeout?: number, scope?: string}} [opts] scope: the Artifact-Worker-Scope of every call (set by the runtime; the model cannot change it)
 */
export function artifactTools(worker, opts = {}) {
  return toolSpecs(opts.locale ?? "en").map((spec) => tool({
    name: spec.name,
    description: spec.description,
    // Strict mode wants every property required and no others: both tools have one, required.
    parameters: { ...spec.parameters, additionalProperties: false },
    strict: true,
    execute: async (args) => toToolOutput(await callTool(worker, spec.name, args, opts)),
  }));
}

/**
 * A result as the Agents SDK's tool output: a string for text only, else text outputs and the
 * media as {type:"image", image:{data, mediaType}} or {type:"file", file:{data, mediaType, filename}}.
 * @param {object} result what the worker answered get_artifact (media "result") or get_history_image (as the tools ask)
 */
export function toToolOutput(result) {
  const parts = resultParts(result);
  if (parts.every((p) => p.type === "text")) return parts.map((p) => p.text).join("\n");
  return parts.map((p) => {
    if (p.type === "text") return { type: "text", text: p.text };
    if (p.mimeType.startsWith("image/")) return { type: "image", image: { data: p.data, mediaType: p.mimeType } };
    return { type: "file", file: { data: p.data, mediaType: p.mimeType, filename: p.filename ?? "file" } };
  });
}
