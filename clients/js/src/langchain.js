// LangChain JS (@langchain/core 1.x) tools over the worker: what get_artifact and get_history_image
// return is a ToolMessage of LangChain.js standard content blocks (text, image, file, audio, video:
// `data` + `mimeType`; the worker's langchain-js dialect), which LangChain's chat models send as media.
import { tool } from "@langchain/core/tools";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { WorkerError } from "./index.js";
import { TOOL_SUBJECTS, resultParts, toolSpecs } from "./tools.js";

/**
 * The tools get_artifact and get_history_image (in that order) as LangChain tools. Invoked with a
 * tool call, each returns a ToolMessage whose content is the worker's assembly in its
 * `langchain-js` dialect (LangChain.js standard blocks), fitted to opts.serviceId (or
 * opts.capabilities); a call the worker answers with an error gives an error ToolMessage (status
 * "error") with the tool result the worker made for it.
 * @param {import("./index.js").WorkerClient} worker
 * @param {{serviceId?: string, capabilities?: string[], locale?: "en" | "zh", timeout?: number, scope?: string}} [opts] scope: the Artifact-Worker-Scope of every call (set by the runtime; the model cannot change it)
 */
export function artifactTools(worker, opts = {}) {
  return toolSpecs(opts.locale ?? "en").map((spec) => tool(
    async (args, config) => {
      const request = {
        ...(spec.name === "get_artifact" ? { ref: args?.ref } : { image_md5: args?.image_md5 }),
        ...(args?.pages ? { pages: args.pages } : {}), // a PDF's pages to send as images ("1-3,7")
        ...(opts.serviceId ? { service_id: opts.serviceId } : {}),
        ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
        locale: opts.locale ?? "en", // as the descriptions: "en" unless told
        dialect: "langchain-js", media: "assembly",
      };
      try {
        const result = await worker.call(TOOL_SUBJECTS[spec.name], request, opts.timeout ? { timeout: opts.timeout } : {});
        return toStandardBlocks(result.assembly.toolContent);
      } catch (err) {
        // The worker's answer to a failed call (not found, bad reference, ...) is for the model, in
        // the request's locale: an error ToolMessage, not an exception ending the agent's loop.
        if (!(err instanceof WorkerError)) throw err;
        const content = err.error.assembly ? toStandardBlocks(err.error.assembly.toolContent) : err.error.message;
        const id = config?.toolCall?.id;
        return id ? new ToolMessage({ content, tool_call_id: id, name: spec.name, status: "error" }) : content;
      }
    },
    { name: spec.name, description: spec.description, schema: spec.parameters },
  ));
}

/**
 * A result asked with media "result" (tools.js callTool) as LangChain.js standard content blocks
 * (what the worker's langchain-js dialect gives): {type:"text", text}, then the media as
 * {type:"image"|"audio"|"video"|"file", data, mimeType} (a file's name in metadata.filename, where
 * LangChain's OpenAI converter reads it).
 * @param {object} result what the worker answered get_artifact (media "result") or get_history_image (as the tools ask)
 */
export function toContentBlocks(result) {
  return resultParts(result).map((p) => (p.type === "text"
    ? { type: "text", text: p.text }
    : { type: blockType(p.mimeType), data: p.data, mimeType: p.mimeType, ...(p.filename ? { metadata: { filename: p.filename } } : {}) }));
}

/**
 * LangChain.js standard content blocks from the content of the worker's `langchain` dialect (an
 * assembly's toolContent, or a turn's tool message content), which has langchain-core Python's
 * shape ({type, base64, mime_type, extras: {filename}}): LangChain.js finds no media in that shape.
 * Blocks already in LangChain.js's shape (data + mimeType) and text blocks pass unchanged.
 * @param {string | Array<Record<string, unknown>>} content
 */
export function toStandardBlocks(content) {
  if (!Array.isArray(content)) return content;
  return content.map((b) => {
    if (typeof b?.base64 !== "string") return b;
    const { base64, mime_type: mimeType, extras, ...rest } = b;
    const filename = extras?.filename;
    return { ...rest, data: base64, mimeType, ...(filename ? { metadata: { filename } } : {}) };
  });
}

function blockType(mimeType) {
  const top = mimeType.split("/")[0];
  return top === "image" || top === "audio" || top === "video" ? top : "file";
}

/**
 * For a chat model whose API takes no media in a tool message (OpenAI Chat Completions, ChatOpenAI
 * without the Responses API: LangChain would drop the media or send it where OpenAI refuses it):
 * messages with the media of each run of ToolMessages (either block shape) moved into one HumanMessage after the run
 * (OpenAI wants every tool message of a turn first). A ToolMessage keeps its text and `note`.
 * @param {import("@langchain/core/messages").BaseMessage[]} messages
 * @param {{note?: string}} [opts] note: default "The content follows in the next message."
 * @returns {import("@langchain/core/messages").BaseMessage[]}
 */
export function mediaAsHumanMessage(messages, opts = {}) {
  const note = opts.note ?? "The content follows in the next message.";
  const out = [];
  let media = [];
  const flush = () => {
    // output_version v1: LangChain's OpenAI converter reads the blocks as standard content blocks.
    if (media.length) out.push(new HumanMessage({ content: media, response_metadata: { output_version: "v1" } }));
    media = [];
  };
  for (const m of messages) {
    if (!ToolMessage.isInstance(m)) {
      flush();
      out.push(m);
      continue;
    }
    const blocks = Array.isArray(m.content) ? toStandardBlocks(m.content) : []; // either block shape
    if (!blocks.some(isMedia)) {
      out.push(m);
      continue;
    }
    media.push(...blocks);
    const text = [...blocks.filter((b) => b.type === "text").map((b) => b.text), note].join("\n");
    out.push(new ToolMessage({ content: text, tool_call_id: m.tool_call_id, name: m.name, status: m.status, artifact: m.artifact }));
  }
  flush();
  return out;
}

function isMedia(block) {
  return block?.type !== "text" && (typeof block?.data === "string" || typeof block?.base64 === "string");
}
