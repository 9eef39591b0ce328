// Vercel AI SDK (`ai`, v7) tools over the worker: what get_artifact and get_history_image return
// reaches the model as the SDK's image and file parts (toModelOutput), never as base64 in text.
import { jsonSchema, tool } from "ai";
import { callTool, resultParts, toolSpecs } from "./tools.js";

/**
 * The tools get_artifact and get_history_image for generateText/streamText, keyed by name. Each
 * calls the worker (results fitted to opts.serviceId, the model's id in the worker's capability
 * registry, or opts.capabilities) and hands the model its result with toModelOutput.
 * @param {import("./index.js").WorkerClient} worker
 * @param {{serviceId?: string, capabilities?: string[], locale?: "en" | "zh", timeout?: number, scope?: string}} [opts] scope: the Artifact-Worker-Scope of every call (set by the runtime; the model cannot change it)
 */
export function artifactTools(worker, opts = {}) {
  return Object.fromEntries(toolSpecs(opts.locale ?? "en").map((spec) => [spec.name, tool({
    description: spec.description,
    inputSchema: jsonSchema(spec.parameters),
    execute: (args) => callTool(worker, spec.name, args, opts),
    toModelOutput: ({ output }) => toModelOutput(output),
  })]));
}

/**
 * A tool result as the model gets it: a text output for text only, else content whose media are
 * `file` parts (mediaType image/png, application/pdf, ...; the SDK's providers send images as
 * images and files as files).
 * @param {object} result what callTool returned
 */
export function toModelOutput(result) {
  const parts = resultParts(result);
  if (parts.every((p) => p.type === "text")) return { type: "text", value: parts.map((p) => p.text).join("\n") };
  return {
    type: "content",
    value: parts.map((p) => (p.type === "text"
      ? { type: "text", text: p.text }
      : { type: "file", mediaType: p.mimeType, data: { type: "data", data: p.data }, ...(p.filename ? { filename: p.filename } : {}) })),
  };
}

/**
 * A language model middleware (wrapLanguageModel) for models whose API takes no media in a tool
 * result, OpenAI Chat Completions (`openai.chat(...)`): the SDK would send the media as JSON text
 * there. It moves the media of every tool result into one user message after the turn's tool
 * messages (OpenAI wants every tool message first), leaving the text and the note the worker uses.
 * @param {{note?: string}} [opts] note: what the tool message says instead of the media
 *   (default "The content follows in the next message.")
 */
export function toolMediaAsUserMessage(opts = {}) {
  const note = opts.note ?? "The content follows in the next message.";
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => ({ ...params, prompt: moveToolMedia(params.prompt, note) }),
  };
}

function moveToolMedia(prompt, note) {
  const out = [];
  let media = [];
  const flush = () => {
    if (media.length) out.push({ role: "user", content: media });
    media = [];
  };
  for (const msg of prompt) {
    if (msg.role !== "tool") {
      flush();
      out.push(msg);
      continue;
    }
    out.push({
      ...msg,
      content: msg.content.map((part) => {
        if (part.type !== "tool-result" || part.output?.type !== "content") return part;
        const files = part.output.value.filter((v) => v.type === "file");
        if (!files.length) return part;
        const texts = part.output.value.filter((v) => v.type === "text").map((v) => v.text);
        media.push(...part.output.value.map((v) => (v.type === "file" ? { ...v } : { type: "text", text: v.text })));
        return { ...part, output: { type: "text", value: [...texts, note].join("\n") } };
      }),
    });
  }
  flush();
  return out;
}
