import type { NatsConnection, ConnectionOptions, Msg } from "@nats-io/transport-node";
import type { ObjectStore } from "@nats-io/obj";
import type {
  Assembly, ChatMessage, Dialect, ErrorObject, FileWrittenRequest, FileWrittenResult, GetArtifactRequest,
  GetArtifactResult, GetHistoryImageRequest, GetHistoryImageResult, MetadataRequest, MetadataResult,
  PreprocessRequest, PreprocessResult, RequestLimits,
} from "./contract.js";

export * from "./contract.js";

export declare const CONTRACT_VERSION: "1";
export declare const Subjects: Readonly<{
  getArtifact: "tool.get_artifact";
  getHistoryImage: "tool.get_history_image";
  fileWritten: "workspace.file_written";
  preprocess: "context.preprocess";
  metadata: "artifact.metadata";
}>;
export declare const REQUEST_REPLY_PREFIX: "artifact-worker.";
export declare const STREAM: "WORKER_REQUESTS";
export declare const CLAIM_CHECK_BUCKET: "WORKER_CLAIMS";
/** Request header carrying the caller's deadline (RFC 3339 UTC, milliseconds); a worker does not start the request after it. */
export declare const HEADER_DEADLINE: "Artifact-Worker-Deadline";
/** Request header saying what a call may read and write: "*", or comma-separated "ws:<workspaceId>" and "artifact:<prefix>*" entries (contracts/README.md, "Scopes"). */
export declare const HEADER_SCOPE: "Artifact-Worker-Scope";

/** Request and result type of each subject. */
export interface SubjectTypes {
  "tool.get_artifact": { request: GetArtifactRequest; result: GetArtifactResult };
  "tool.get_history_image": { request: GetHistoryImageRequest; result: GetHistoryImageResult };
  "workspace.file_written": { request: FileWrittenRequest; result: FileWrittenResult };
  "context.preprocess": { request: PreprocessRequest; result: PreprocessResult };
  "artifact.metadata": { request: MetadataRequest; result: MetadataResult };
}
export type Subject = keyof SubjectTypes;
/** A request as call() takes it: request_id is added when missing. */
export type RequestOf<S extends Subject> = Omit<SubjectTypes[S]["request"], "request_id"> & { request_id?: string };
export type ResultOf<S extends Subject> = SubjectTypes[S]["result"];

export interface CallOptions {
  /** Milliseconds to wait for the reply (default: the client's, 60 000). */
  timeout?: number;
  /** This call's Artifact-Worker-Scope (default: the client's); set by the runtime, never from a model's arguments. */
  scope?: string;
}

/** A reply with ok=false. */
export declare class WorkerError extends Error {
  readonly code: string;
  readonly field?: string;
  readonly ref?: string;
  readonly retryable: boolean;
  readonly requestId: string;
  readonly error: ErrorObject;
  /** Sending the request again is safe and may succeed: `retryable` (not `expired`); under a new request_id, this one is spent. */
  readonly retrySafe: boolean;
}

/** The request_id was already sent within JetStream's 2-minute de-duplication window. */
export declare class DuplicateRequestError extends Error {
  readonly code: "duplicate_request";
  readonly subject: string;
  readonly requestId: string;
  /** False: it is stored (by the first sender); asking again needs a new request_id. */
  readonly retrySafe: false;
}

/** JetStream refused to store the request (an API error other than unavailable): it is not stored. */
export declare class StoreError extends Error {
  readonly subject: string;
  readonly requestId: string;
  /** False: the same request would be refused again. */
  readonly retrySafe: false;
}

/**
 * A call ran out of time (its timeout, also the request's deadline): before JetStream acknowledged
 * the request although the client kept trying ("store": `cause` is the last failure, a retry with
 * the same request_id is safe) or before its reply ("reply": stored, not started after its deadline).
 */
export declare class WorkerTimeoutError extends Error {
  readonly subject: string;
  readonly requestId: string;
  readonly timeoutMs: number;
  readonly stage: "store" | "reply";
  /** The request's sequence in WORKER_REQUESTS (stage "reply"). */
  readonly streamSeq?: number;
  /** Attempts at storing the request. */
  readonly attempts: number;
  /** True for "store" (sent again with the same request_id, it is stored at most once), false for "reply". */
  readonly retrySafe: boolean;
}

/** Options of a client. */
export interface ClientOptions {
  /** Default milliseconds a call waits (60 000); also the deadline each request carries. */
  timeout?: number;
  /** Milliseconds one attempt at storing a request waits for JetStream's acknowledgement before it is tried again (3 000). */
  storeAttemptTimeout?: number;
  /** Artifact-Worker-Scope of every call that gives none: what the calls may read, e.g. "ws:team-a". */
  scope?: string;
  /**
   * Milliseconds JetStream may go unanswered (timeouts, no responders, 503) through the connection's
   * server while the connection is up before the client reconnects it to another server of the
   * cluster: a server cut off from its cluster (4 000; negative: never). The Go client's SetSwitchAfter.
   */
  switchAfter?: number;
  /**
   * The tenant of a worker pool shared by tenants (the worker's TENANTS): calls go to
   * tenant.<tenant>.<subject>, large bodies through WORKER_CLAIMS_<tenant>, replies under
   * _INBOX.<tenant>. Connect with `inboxPrefix: "_INBOX.<tenant>"` too (JetStream's acknowledgements).
   */
  tenant?: string;
}

export declare function newRequestId(): string;

export declare class WorkerClient {
  constructor(nc: NatsConnection, opts?: ClientOptions);
  static connect(connectOptions?: ConnectionOptions, opts?: ClientOptions): Promise<WorkerClient>;
  readonly nc: NatsConnection;
  /** The scope calls send when they give none ("": no header). */
  scope: string;
  /** Reconnects of nc seen so far: a call waiting for its reply asks again after one (a reply sent meanwhile is lost). */
  reconnects: number;
  /** The server's max payload (the last one seen while nats.js reconnects). */
  maxPayload(): number;
  close(): Promise<void>;
  claims(): Promise<ObjectStore>;
  call<S extends Subject>(subject: S, request: RequestOf<S>, opts?: CallOptions): Promise<ResultOf<S>>;
  call(subject: string, request: object, opts?: CallOptions): Promise<unknown>;
  /** media defaults to "assembly" (also when it is undefined or null), as in the Go client. */
  getArtifact(request: RequestOf<"tool.get_artifact">, opts?: CallOptions): Promise<GetArtifactResult>;
  /** media defaults to "assembly", as for getArtifact. */
  getHistoryImage(request: RequestOf<"tool.get_history_image">, opts?: CallOptions): Promise<GetHistoryImageResult>;
  fileWritten(request: RequestOf<"workspace.file_written">, opts?: CallOptions): Promise<FileWrittenResult>;
  preprocess(request: RequestOf<"context.preprocess">, opts?: CallOptions): Promise<PreprocessResult>;
  metadata(request: RequestOf<"artifact.metadata">, opts?: CallOptions): Promise<MetadataResult>;
  callRaw(subject: string, body: Uint8Array, opts?: CallOptions & { requestId?: string }): Promise<Uint8Array>;
  resolve(msg: Msg): Promise<Uint8Array>;
}

/** One tool call of an assistant turn: its id, its function's name and the worker's answer (a result, or an error). */
export interface TurnCall {
  /** tool_call_id (openai-chat, langchain), call_id (openai-responses), tool_use_id (anthropic), functionCall.id (gemini), toolUseId (bedrock-converse). */
  id: string;
  /** The function's name: required by gemini (functionResponse.name), sent by langchain. */
  name?: string;
  /** A result without assembly (media "result") is refused. */
  result?: { assembly?: Assembly };
  /** A failed call: answered with the WorkerError's `error.assembly` in the turn's dialect, else with the error's text. */
  error?: Error;
}

/** The content a dialect puts where a tool's result goes (Assembly.toolContent). */
export type ToolContent = Assembly["toolContent"];

/** openai-chat and langchain: one tool message per call. */
export type ToolMessage = { role: "tool"; tool_call_id: string; name?: string; content: ToolContent };
/** openai-responses: one input item per call. */
export type FunctionCallOutput = { type: "function_call_output"; call_id: string; output: ToolContent };
/** anthropic: one user message of tool_result blocks. */
export type AnthropicToolResults = {
  role: "user";
  content: Array<{ type: "tool_result"; tool_use_id: string; content: ToolContent; is_error?: true }>;
};
/** gemini: one user content of functionResponse parts (the assembly's response and parts, plus id and name). */
export type GeminiFunctionResponses = {
  role: "user";
  parts: Array<{ functionResponse: { id: string; name: string; response: { output: string }; parts?: Array<Record<string, unknown>> } }>;
};
/** bedrock-converse: one user message of toolResult blocks (status "error" for a failed call). */
export type BedrockToolResults = {
  role: "user";
  content: Array<{ toolResult: { toolUseId: string; content: ToolContent; status: "success" | "error" } }>;
};
/** openai-chat: a follow-up user message carrying media. */
export type ChatFollowUp = { role: string; content: string | Array<Record<string, unknown>> };
/** gemini: a follow-up user content carrying media, after the function responses (models without toolResultMedia "inline"). */
export type GeminiFollowUp = {
  role: "user";
  parts: Array<{ text: string } | { inlineData: { mimeType: string; data: string } }>;
};
/** A message (or Responses input item) of an assembled turn. */
export type TurnMessage = ToolMessage | ChatFollowUp | FunctionCallOutput | AnthropicToolResults | GeminiFunctionResponses | GeminiFollowUp | BedrockToolResults;

/**
 * The messages answering every call of one assistant turn, in call order, in the dialect of the
 * assemblies (the Go client's client.Turn): openai-chat tool messages then the follow-ups;
 * openai-responses function_call_output items; one anthropic or bedrock-converse user message;
 * one gemini user content of function responses then the follow-ups; langchain tool messages. Throws on no calls, a call without id, a gemini call without
 * name, mixed dialects or an unknown one.
 */
export declare function assembleTurn(calls: TurnCall[], opts?: { dialect?: Dialect; locale?: "zh" | "en"; limits?: RequestLimits }): TurnMessage[];
