import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { BaseMessage } from "@langchain/core/messages";
import type { WorkerClient } from "./index.js";
import type { GetArtifactResult, GetHistoryImageResult } from "./contract.js";
import type { ToolOptions } from "./ai-sdk.js";

export type { ToolOptions };

/** A LangChain.js standard content block as these tools return them. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio" | "video" | "file"; data: string; mimeType: string; metadata?: { filename: string } };

/** get_artifact and get_history_image, in that order; invoked with a tool call, each returns a ToolMessage of ContentBlocks. */
export declare function artifactTools(worker: WorkerClient, opts?: ToolOptions): DynamicStructuredTool[];

/** A result as LangChain.js standard content blocks. */
export declare function toContentBlocks(result: GetArtifactResult | GetHistoryImageResult): ContentBlock[];

/** The messages with each run of ToolMessages' media moved into one HumanMessage after the run (OpenAI Chat Completions). */
export declare function mediaAsHumanMessage(messages: BaseMessage[], opts?: { note?: string }): BaseMessage[];

/** LangChain.js standard blocks from the worker's `langchain` dialect content (Python's shape: base64, mime_type, extras.filename); other blocks unchanged. */
export declare function toStandardBlocks(content: string | Array<Record<string, unknown>>): string | Array<Record<string, unknown>>;
