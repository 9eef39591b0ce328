// The worker's read tools as a model sees them, and what their results hold for a model: shared by
// the framework adapters (ai-sdk.js, langchain.js, openai-agents.js).

import { Subjects } from "./constants.js";

/**
 * get_artifact and get_history_image as a model sees them: name, description and JSON Schema
 * parameters, in English ("en") and Chinese ("zh"); the same text as the repository's
 * contracts/tools/ (test/tools.test.js compares them).
 */
export const TOOL_SPECS = Object.freeze({
  "en": [
    {
      "name": "get_artifact",
      "description": "Read an artifact. What comes back follows the current model's capabilities: text as it is; an image or file the model can read as image or file content; binary content it cannot read as a short text description (name, type, size), never base64 in text.",
      "parameters": {
        "properties": {
          "pages": {
            "description": "The PDF's pages to send (optional): such as \"1-3,7\" or \"21-\", numbered from 1; for pages an earlier answer left out",
            "type": "string"
          },
          "ref": {
            "description": "Artifact reference: artifact:{id}, or a workspace file's artifact ID ws:{workspaceId}:{base64Path}",
            "type": "string"
          }
        },
        "required": [
          "ref"
        ],
        "type": "object"
      }
    },
    {
      "name": "get_history_image",
      "description": "Get an image the user uploaded earlier in the conversation.\nWhen the user asks about details of an earlier image (such as \"what is in the top right corner of that picture\"),\nuse this tool to get the image and analyse it.\nThe input is the image's MD5 hash (taken from the [Picture:history_xxx] placeholder).\nDocuments and other files appear as [File:history_xxx] placeholders: pass their hash the same way.",
      "parameters": {
        "properties": {
          "image_md5": {
            "description": "The image's MD5 hash (taken from the [Picture:history_xxx] placeholder; for a file, from [File:history_xxx])",
            "type": "string"
          },
          "pages": {
            "description": "The PDF's pages to send (optional): such as \"1-3,7\" or \"21-\", numbered from 1; for pages an earlier answer left out",
            "type": "string"
          }
        },
        "required": [
          "image_md5"
        ],
        "type": "object"
      }
    }
  ],
  "zh": [
    {
      "name": "get_artifact",
      "description": "读取工件内容。按当前模型的能力返回：文本原样返回；模型能读取的图片或文件以图片或文件内容返回；模型无法读取的二进制内容返回文本描述（名称、类型、大小），不会把 base64 放进文本。",
      "parameters": {
        "properties": {
          "pages": {
            "description": "PDF 要发送的页（可选）：如 \"1-3,7\" 或 \"21-\"，页码从 1 开始；用于读取上次回答未包含的页",
            "type": "string"
          },
          "ref": {
            "description": "工件引用：artifact:{id}，或工作区文件的工件ID ws:{workspaceId}:{base64Path}",
            "type": "string"
          }
        },
        "required": [
          "ref"
        ],
        "type": "object"
      }
    },
    {
      "name": "get_history_image",
      "description": "获取历史对话中用户上传的图片。\n当用户询问历史图片的细节（如\"刚才那张图的右上角是什么\"）时，\n使用此工具获取图片内容进行分析。\n输入参数为图片的 MD5 哈希值（从 [Picture:history_xxx] 占位符中提取）。\n文档等其他文件以 [File:history_xxx] 占位符出现，同样传入其中的哈希值。",
      "parameters": {
        "properties": {
          "image_md5": {
            "description": "图片的 MD5 哈希值（从 [Picture:history_xxx] 占位符中提取；文件取自 [File:history_xxx]）",
            "type": "string"
          },
          "pages": {
            "description": "PDF 要发送的页（可选）：如 \"1-3,7\" 或 \"21-\"，页码从 1 开始；用于读取上次回答未包含的页",
            "type": "string"
          }
        },
        "required": [
          "image_md5"
        ],
        "type": "object"
      }
    }
  ]
});

/** Which subject answers each tool. */
export const TOOL_SUBJECTS = Object.freeze({ get_artifact: Subjects.getArtifact, get_history_image: Subjects.getHistoryImage });

/**
 * The specs of one locale ("en" by default; "zh").
 * @param {string} [locale]
 */
export function toolSpecs(locale = "en") {
  const specs = TOOL_SPECS[locale];
  if (!specs) throw new Error(`toolSpecs: locale ${JSON.stringify(locale)} is not one of ${Object.keys(TOOL_SPECS).join(", ")}`);
  return specs;
}

/**
 * Calls the worker for one tool call of a model, fitted to the model named by opts.serviceId (or
 * opts.capabilities): get_artifact with media "result" (the text and the media in the result),
 * get_history_image with media "assembly" in the anthropic dialect (a model without vision gets
 * the placeholder and a sentence saying so, which only the assembly carries). resultParts reads both.
 * @param {import("./index.js").WorkerClient} worker
 * @param {"get_artifact" | "get_history_image"} name
 * @param {Record<string, unknown>} args the model's arguments (ref, or image_md5; pages)
 * @param {{serviceId?: string, capabilities?: string[], locale?: string, timeout?: number, scope?: string}} [opts] scope: the Artifact-Worker-Scope of every call (set by the runtime; the model cannot change it)
 */
export function callTool(worker, name, args, opts = {}) {
  const subject = TOOL_SUBJECTS[name];
  if (!subject) throw new Error(`callTool: unknown tool ${JSON.stringify(name)}`);
  const request = {
    ...(name === "get_artifact" ? { ref: args?.ref, media: "result" } : { image_md5: args?.image_md5, media: "assembly", dialect: "anthropic" }),
    ...(args?.pages ? { pages: args.pages } : {}), // a PDF's pages to send as images ("1-3,7")
    ...(opts.serviceId ? { service_id: opts.serviceId } : {}),
    ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
    locale: opts.locale ?? "en", // the tools' descriptions and their results in one language: "en" unless told
  };
  // The scope is the adapter's (the runtime's), never a tool argument: the model cannot widen it.
  return worker.call(subject, request, { ...(opts.timeout ? { timeout: opts.timeout } : {}), ...(opts.scope ? { scope: opts.scope } : {}) });
}

/**
 * The parts of a tool's result in order: text, then the media the worker chose to send the model
 * (an image, or a file: PDF, audio, ...), each as its MIME type and standard base64. A text, a
 * description or an extraction is one text part. It reads a get_artifact result asked with media
 * "result" (content, imageUrl, file) and a result carrying an anthropic assembly (text, image and
 * document blocks), as callTool asks for them.
 * @param {import("./contract.js").GetArtifactResult | import("./contract.js").GetHistoryImageResult} result
 * @returns {Array<{type: "text", text: string} | {type: "media", mimeType: string, data: string, filename?: string}>}
 */
export function resultParts(result) {
  const parts = [];
  if (typeof result?.content === "string") {
    if (result.content) parts.push({ type: "text", text: result.content });
    if (result.imageUrl) parts.push({ type: "media", ...fromDataURL(result.imageUrl.image_url.url) });
    if (result.file) parts.push({ type: "media", mimeType: result.file.file.mimeType, data: result.file.file.data, filename: result.file.file.filename });
    // A PDF sent as its pages (routing "pages"): each page's name and text layer, then its image.
    for (const p of result.pages?.images ?? []) {
      if (p.text) parts.push({ type: "text", text: p.text });
      parts.push({ type: "media", ...fromDataURL(p.imageUrl.image_url.url) });
    }
    return parts;
  }
  const asm = result?.assembly;
  if (asm?.dialect !== "anthropic" || !Array.isArray(asm.toolContent)) {
    throw new Error("resultParts: neither a get_artifact result with media \"result\" nor an anthropic assembly");
  }
  for (const b of asm.toolContent) {
    if (b.type === "text") {
      if (b.text) parts.push({ type: "text", text: b.text });
    } else if ((b.type === "image" || b.type === "document") && b.source?.type === "base64") {
      parts.push({ type: "media", mimeType: b.source.media_type, data: b.source.data, ...(b.title ? { filename: b.title } : {}) });
    } else {
      throw new Error(`resultParts: an anthropic block of type ${JSON.stringify(b.type)} this client does not read`);
    }
  }
  return parts;
}

function fromDataURL(url) {
  const m = /^data:([^;,]+);base64,/.exec(url);
  if (!m) throw new Error(`resultParts: an image URL that is not a base64 data URL: ${url.slice(0, 64)}`);
  return { mimeType: m[1], data: url.slice(m[0].length) };
}
