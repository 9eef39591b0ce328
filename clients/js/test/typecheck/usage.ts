// Type-checked by test/types.test.js (tsc --noEmit): the package's types describe the calls a
// TypeScript runtime makes, and refuse what the contract refuses.
import {
  WorkerClient, WorkerError, DuplicateRequestError, WorkerTimeoutError, StoreError, HEADER_DEADLINE, assembleTurn, Subjects,
  type GetArtifactResult, type FileWrittenResult, type ChatMessage, type TurnMessage,
} from "@agentworks/artifact-worker-client";

export async function usage(seen: unknown[]): Promise<Array<ChatMessage | Record<string, unknown>>> {
  const worker = await WorkerClient.connect({ servers: "nats://127.0.0.1:4222" }, { timeout: 30_000 });
  const written: FileWrittenResult = await worker.fileWritten({ workspace_id: "w", path: "a.md", mime_type: "text/markdown", content: "# A" });
  const res: GetArtifactResult = await worker.call(Subjects.getArtifact, { ref: written.artifactId, service_id: "gpt-4o", media: "assembly" });
  const size: number = res.metadata.size;
  const hist = await worker.getHistoryImage({ image_md5: "history_0123456789abcdef", dialect: "anthropic" });
  const blocks = hist.content?.map((b) => b.mime_type) ?? [];
  // @ts-expect-error ref is required by get_artifact.request.json
  await worker.getArtifact({ service_id: "gpt-4o" });
  // @ts-expect-error size is a number
  const wrong: string = res.metadata.size;
  try {
    await worker.metadata({ id: written.artifactId });
  } catch (err) {
    if (err instanceof WorkerError) seen.push(err.code, err.retryable, err.error.assembly?.toolContent);
    if (err instanceof DuplicateRequestError) seen.push(err.requestId);
    if (err instanceof WorkerTimeoutError) seen.push(err.stage, err.streamSeq);
  }
  await worker.close();
  seen.push(size, blocks, wrong);
  return assembleTurn([{ id: "call_1", result: res }]);
}

// A gemini turn of two calls, one failed: the functionResponse parts carry id and name.
export function geminiTurn(res: GetArtifactResult, err: WorkerError): string[] {
  const turn: TurnMessage[] = assembleTurn([{ id: "c1", name: "get_artifact", result: res }, { id: "c2", name: "get_artifact", error: err }], { dialect: "gemini" });
  // @ts-expect-error a call needs its id
  assembleTurn([{ name: "get_artifact", result: res }]);
  return turn.flatMap((m) => ("parts" in m ? m.parts.flatMap((p) => ("functionResponse" in p ? [p.functionResponse.name] : [])) : []));
}

// Every error of a call says whether sending it again is safe.
export function retrySafe(err: unknown): boolean {
  if (err instanceof WorkerTimeoutError) return err.retrySafe && err.attempts > 0;
  if (err instanceof StoreError) return err.retrySafe;
  if (err instanceof WorkerError || err instanceof DuplicateRequestError) return err.retrySafe;
  return false;
}
export const deadlineHeader: "Artifact-Worker-Deadline" = HEADER_DEADLINE;
export const client = (nc: WorkerClient["nc"]) => new WorkerClient(nc, { timeout: 5_000, storeAttemptTimeout: 500 });
