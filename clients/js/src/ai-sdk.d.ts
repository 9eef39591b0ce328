import type { LanguageModelMiddleware, Tool, ToolResultPart } from "ai";
import type { WorkerClient } from "./index.js";
import type { Capability, GetArtifactResult, GetHistoryImageResult } from "./contract.js";

/** Which model the results are fitted to, and how the tools are described. */
export interface ToolOptions {
  /** The model's id in the worker's capability registry (e.g. "gpt-4o"). */
  serviceId?: string;
  /** The model's capabilities, when it is not in the registry. */
  capabilities?: Capability[];
  /** Language of the tool descriptions and of the worker's texts (default "en"). */
  locale?: "en" | "zh";
  /** Milliseconds a call waits (default: the client's). */
  timeout?: number;
  /** Artifact-Worker-Scope of every tool call (default: the client's), e.g. "ws:team-a": set by the runtime, never by the model. */
  scope?: string;
}

/** get_artifact and get_history_image as AI SDK tools; their results reach the model through toModelOutput. */
export declare function artifactTools(worker: WorkerClient, opts?: ToolOptions): {
  get_artifact: Tool<{ ref: string }, GetArtifactResult>;
  get_history_image: Tool<{ image_md5: string }, GetHistoryImageResult>;
};

/** A tool's result as the model gets it: text, or content with `file` parts for the media. */
export declare function toModelOutput(result: GetArtifactResult | GetHistoryImageResult): ToolResultPart["output"];

/** Middleware for Chat Completions models: tool-result media move into one user message after the turn's tool messages. */
export declare function toolMediaAsUserMessage(opts?: { note?: string }): LanguageModelMiddleware;
