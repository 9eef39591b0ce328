// Type-checked by test/types.test.js: the framework adapters' types fit the frameworks' own.
import { generateText, wrapLanguageModel, stepCountIs, type LanguageModel } from "ai";
import { WorkerClient } from "@agentworks/artifact-worker-client";
import { artifactTools, toolMediaAsUserMessage } from "@agentworks/artifact-worker-client/ai-sdk";
import type { BaseMessage } from "@langchain/core/messages";
import { artifactTools as artifactToolsLC, mediaAsHumanMessage } from "@agentworks/artifact-worker-client/langchain";
import { Agent } from "@openai/agents";
import { artifactTools as artifactToolsAgents } from "@agentworks/artifact-worker-client/openai-agents";

export async function aiSDK(worker: WorkerClient, model: LanguageModel & object): Promise<string> {
  const tools = artifactTools(worker, { serviceId: "gpt-4o", locale: "zh" });
  // @ts-expect-error locale is en or zh
  artifactTools(worker, { locale: "fr" });
  const wrapped = wrapLanguageModel({ model: model as Parameters<typeof wrapLanguageModel>[0]["model"], middleware: toolMediaAsUserMessage() });
  const { text } = await generateText({ model: wrapped, tools, stopWhen: stepCountIs(3), prompt: "p" });
  return text;
}

export async function langChain(worker: WorkerClient, messages: BaseMessage[]): Promise<BaseMessage[]> {
  const tools = artifactToolsLC(worker, { serviceId: "claude-sonnet-4" });
  const msg = await tools[0].invoke({ id: "c1", name: "get_artifact", args: { ref: "artifact:x" }, type: "tool_call" });
  return mediaAsHumanMessage([...messages, msg]);
}

export function agents(worker: WorkerClient): Agent {
  return new Agent({ name: "a", instructions: "i", tools: artifactToolsAgents(worker, { capabilities: ["text", "vision"] }) });
}
