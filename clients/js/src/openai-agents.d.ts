import type { FunctionTool, ToolOutputFileContent, ToolOutputImage, ToolOutputText } from "@openai/agents";
import type { WorkerClient } from "./index.js";
import type { GetArtifactResult, GetHistoryImageResult } from "./contract.js";
import type { ToolOptions } from "./ai-sdk.js";

export type { ToolOptions };

/** get_artifact and get_history_image, in that order, as strict function tools. */
export declare function artifactTools(worker: WorkerClient, opts?: ToolOptions): FunctionTool[];

/** A result as the Agents SDK's tool output: a string for text only, else text, image and file outputs. */
export declare function toToolOutput(result: GetArtifactResult | GetHistoryImageResult): string | Array<ToolOutputText | ToolOutputImage | ToolOutputFileContent>;
