// Type-checked by test/types.test.js: the framework adapters' types fit the frameworks' own.
import { generateText, wrapLanguageModel, stepCountIs, type LanguageModel } from "ai";
import { WorkerClient } from "@agentworks/artifact-worker-client";
import { artifactTools, toolMediaAsUserMessage } from "@agentworks/artifact-worker-client/ai-sdk";

export async function aiSDK(worker: WorkerClient, model: LanguageModel & object): Promise<string> {
  const tools = artifactTools(worker, { serviceId: "gpt-4o", locale: "zh" });
  // @ts-expect-error locale is en or zh
  artifactTools(worker, { locale: "fr" });
  const wrapped = wrapLanguageModel({ model: model as Parameters<typeof wrapLanguageModel>[0]["model"], middleware: toolMediaAsUserMessage() });
  const { text } = await generateText({ model: wrapped, tools, stopWhen: stepCountIs(3), prompt: "p" });
  return text;
}
