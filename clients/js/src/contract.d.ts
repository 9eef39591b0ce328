// Types of the worker's wire contract v1, one interface per object of the JSON Schemas in
// contracts/schema/ (test/contract.test.js keeps them in step: same properties, same required ones).
// Enumerations are open (`| (string & {})`): v1 may add values; handle the ones you know.

type Open<T extends string> = T | (string & {});

export type Capability = Open<"text" | "vision" | "file" | "audio" | "video">;
export type Dialect = Open<"openai-chat" | "openai-responses" | "anthropic" | "gemini" | "bedrock-converse" | "langchain" | "langchain-js">;
export type Locale = Open<"zh" | "en">;
/** Where a reply carries the media: both (default), result (imageUrl/file or content only), assembly (assembly only). */
export type Media = Open<"both" | "result" | "assembly">;

/** reply.json */
export interface Reply<R = unknown> {
  request_id: string;
  ok: boolean;
  result?: R;
  error?: ErrorObject;
}

/** reply.json #/$defs/Error */
export interface ErrorObject {
  code: string;
  message: string;
  field?: string;
  ref?: string;
  retryable?: boolean;
  /** tool.get_artifact and tool.get_history_image: the tool result to give the model instead of content. */
  assembly?: Assembly;
}

/** get_artifact.request.json */
export interface GetArtifactRequest {
  request_id: string;
  ref: string;
  service_id?: string;
  capabilities?: Capability[];
  dialect?: Dialect;
  locale?: Locale;
  media?: Media;
  /** Same as service_id (design document 000). */
  serviceId?: string;
  extract_text?: boolean;
}

/** get_artifact.result.json */
export interface GetArtifactResult {
  contentType: Open<"text" | "image" | "binary">;
  routing: Open<"text" | "image_url" | "file">;
  content: string;
  imageUrl?: ImageURLPart;
  file?: FilePart;
  metadata: ArtifactMetadata;
  /** Absent when the request asked for media "result". */
  assembly?: Assembly;
  /** routing image_url: what was done to fit the image to the model. */
  imageProcessing?: ImageProcessing;
  /** Estimated input tokens as sent, against the same media as base64 text. */
  usage: Usage;
  /** What decided which inputs the model takes (the registry entry service_id resolved to, or not). */
  model?: ModelDecision;
}

/** get_artifact.result.json #/$defs/ModelDecision */
export interface ModelDecision {
  /** registry: service_id resolved to an entry; request: the capabilities list; none: text only. */
  decidedBy: Open<"registry" | "request" | "none">;
  /** The registry entry's id, e.g. "claude-3-5-sonnet-20240620" for "anthropic.claude-3-5-sonnet-20240620-v1:0". */
  entry?: string;
  /** The entry's provider, the model's own ("openai", "anthropic", ...). */
  provider?: string;
  /** The provider the name says serves the model ("bedrock", "vertex", "openrouter", ...). */
  servedBy?: string;
  /** "curated", "catalogue" or "file" (LLM_SERVICES_FILE). */
  source?: string;
}

/** get_artifact.result.json #/$defs/Usage (also get_history_image.result.json) */
export interface Usage {
  inputTokens: number;
  base64TextTokens: number;
  /** base64TextTokens - inputTokens; 0 when only text is sent or basis is "unknown". */
  tokensSaved: number;
  basis: Open<"text" | "openai-tiles" | "anthropic-pixels" | "gemini-tiles" | "audio-seconds" | "unknown">;
}

/** get_artifact.result.json #/$defs/ImageProcessing */
export interface ImageProcessing {
  original: ImageInfo;
  sent: ImageInfo;
  /** oriented, first_frame, converted, downscaled, reencoded; empty: sent as it was. */
  actions?: string[];
}

/** get_artifact.result.json #/$defs/ImageInfo */
export interface ImageInfo {
  format: string;
  width: number;
  height: number;
  bytes: number;
}

/** get_artifact.result.json #/$defs/ImageURLPart */
export interface ImageURLPart {
  type: "image_url";
  image_url: ImageURL;
}

/** get_artifact.result.json #/$defs/ImageURLPart/properties/image_url */
export interface ImageURL {
  url: string;
}

/** get_artifact.result.json #/$defs/FilePart */
export interface FilePart {
  type: "file";
  file: FileData;
}

/** get_artifact.result.json #/$defs/FilePart/properties/file */
export interface FileData {
  filename: string;
  mimeType: string;
  data: string;
}

/** get_artifact.result.json #/$defs/ArtifactMetadata */
export interface ArtifactMetadata {
  id: string;
  /** The MIME type, the same value as mimeType (design documents 000 and 004). */
  type: string;
  filename: string;
  mimeType: string;
  size: number;
  createdAt: string;
  /** Category of a binary; absent for text. */
  binaryType?: Open<"image" | "audio" | "video" | "document" | "other">;
  /** Detected format: png, pdf, md, ... */
  format?: string;
  tooLarge?: boolean;
  confidence?: number;
  workspaceId?: string;
  relativePath?: string;
  extracted?: Extraction;
}

/** get_artifact.result.json #/$defs/Extraction: what text extraction read (extract_text). */
export interface Extraction {
  unit: "page" | "sheet" | "slide" | "chapter" | "document";
  total: number;
  read: number;
  chars: number;
  remaining?: number;
  truncated?: boolean;
  timedOut?: boolean;
  noText?: boolean;
}

/** get_artifact.result.json #/$defs/Assembly (also get_history_image.result.json, reply.json) */
export interface Assembly {
  dialect: Dialect;
  /**
   * Where the dialect puts a tool's result. openai-chat: a string; openai-responses: a string or
   * input_* parts; anthropic, bedrock-converse, langchain: a list of blocks; gemini: a
   * functionResponse object without name and id (with parts:[{inlineData}] only for a model whose
   * registry entry has toolResultMedia "inline", e.g. Gemini 3).
   */
  toolContent: string | Array<Record<string, unknown>> | Record<string, unknown>;
  /**
   * Messages to append after every tool message of the turn (gemini: after the one content holding
   * every functionResponse), in call order: openai-chat media, and gemini media for models that take
   * none in a function response (toolResultMedia "followUp", the default: Gemini 2.x).
   */
  followUp?: ChatMessage[];
}

/** get_artifact.result.json #/$defs/Assembly/properties/toolContent/oneOf/1/items */
export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

/** get_artifact.result.json #/$defs/ChatMessage */
export interface ChatMessage {
  role: string;
  /** openai-chat: a string or a list of parts. */
  content?: string | Array<Record<string, unknown>>;
  /** gemini: a Content's parts, {text} and {inlineData: {mimeType, data}}. */
  parts?: Array<Record<string, unknown>>;
}

/** get_history_image.request.json */
export interface GetHistoryImageRequest {
  request_id: string;
  image_md5: string;
  /** The image is fitted to this service's model (formats, limits), or described without vision. */
  service_id?: string;
  capabilities?: Capability[];
  dialect?: Dialect;
  locale?: Locale;
  media?: Media;
}

/** get_history_image.result.json */
export interface GetHistoryImageResult {
  /** Absent when the request asked for media "assembly". */
  content?: HistoryImageBlock[];
  /** Absent when the request asked for media "result". */
  assembly?: Assembly;
  /** What was done to fit the image to the model; absent when it is not sent. */
  imageProcessing?: ImageProcessing;
  usage: Usage;
}

/** get_history_image.result.json #/$defs/HistoryImageBlock */
export interface HistoryImageBlock {
  type: "image" | "file" | "audio" | "video";
  mime_type: string;
  base64: string;
}

/** file_written.request.json */
export interface FileWrittenRequest {
  request_id: string;
  /** Required, or its design document 004 spelling workspaceId. */
  workspace_id?: string;
  path: string;
  /** Required, or its design document 004 spelling mimeType. */
  mime_type?: string;
  agent_id?: string;
  message_id?: string;
  content?: string;
  content_base64?: string;
  /** Same as workspace_id (design document 004). */
  workspaceId?: string;
  /** Same as mime_type (design document 004's write_file). */
  mimeType?: string;
  /** Same as agent_id (design document 004). */
  agentId?: string;
  /** Same as message_id (design document 004). */
  messageId?: string;
}

/** file_written.result.json */
export interface FileWrittenResult {
  ok: boolean;
  artifactId: string;
  path: string;
}

/** preprocess.request.json */
export interface PreprocessRequest {
  request_id: string;
  messages: Array<[string, unknown] | MessageObject>;
  /** The shape of messages; absent: any dialect's. */
  dialect?: Dialect;
  /** Latest turns that keep their media; absent: the worker's HISTORY_KEEP_TURNS (1). */
  keep_turns?: number;
  /** The target model: media of a kind it cannot read is described everywhere. */
  service_id?: string;
  capabilities?: Capability[];
  locale?: Locale;
}

/** preprocess.request.json #/$defs/Messages/items/oneOf/1 */
export interface MessageObject {
  role?: string;
  content?: unknown;
  /** An OpenAI Responses item's type (function_call_output, ...). */
  type?: string;
  /** A Gemini content's parts. */
  parts?: unknown[];
  [key: string]: unknown;
}

/** preprocess.result.json */
export interface PreprocessResult {
  messages: Array<[string, unknown] | MessageObject>;
  stats: PreprocessStats;
  left_alone?: LeftAlonePart[];
}

/** preprocess.result.json #/properties/stats */
export interface PreprocessStats {
  images_replaced: number;
  bytes_removed: number;
  tokens_saved_estimate: number;
  cache_failures: number;
  parts_skipped: number;
  files_replaced: number;
  media_described: number;
}

/** preprocess.result.json #/properties/left_alone/items */
export interface LeftAlonePart {
  /** JSON path in messages: messages[3].content[0].content[1]. */
  path: string;
  reason: string;
}

/** metadata.request.json */
export interface MetadataRequest {
  request_id: string;
  id: string;
}

/** metadata.result.json */
export interface MetadataResult {
  id: string;
  type: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  meta: MetadataMeta;
  mimeType: string;
  size: number;
}

/** metadata.result.json #/properties/meta */
export interface MetadataMeta {
  filename: string;
  workspaceId?: string;
  relativePath?: string;
  modifiedBy?: Modification[];
}

/** metadata.result.json #/properties/meta/properties/modifiedBy/items */
export interface Modification {
  agentId: string;
  timestamp: string;
  messageId?: string;
  requestId?: string;
}
