// A stand-in for the OpenAI API on 127.0.0.1 (OPENAI_BASE_URL points the SDKs at it), for the
// framework tests: it records every request body and plays a model that calls get_artifact once on
// the artifact ID (artifact:... or ws:...) in the last user text, then answers "done" once a tool
// result came back. Responses API (/responses) and Chat Completions (/chat/completions), not streamed.
import { createServer } from "node:http";

export async function startFakeOpenAI() {
  const requests = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || "{}");
    requests.push({ path: req.url, body });
    const reply = req.url.endsWith("/responses") ? responses(body)
      : req.url.endsWith("/chat/completions") ? chat(body)
        : null;
    res.writeHead(reply ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(reply ?? { error: { message: `no fake for ${req.url}` } }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };

function responses(body) {
  const items = Array.isArray(body.input) ? body.input : [{ role: "user", content: body.input }];
  const answered = items.some((i) => i.type === "function_call_output");
  const output = answered
    ? [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] }]
    : [{ type: "function_call", id: "fc_1", call_id: "call_1", name: "get_artifact", arguments: JSON.stringify({ ref: refIn(items) }), status: "completed" }];
  return { id: "resp_1", object: "response", created_at: 0, status: "completed", model: body.model, output, usage };
}

function chat(body) {
  const answered = body.messages.some((m) => m.role === "tool");
  const message = answered
    ? { role: "assistant", content: "done" }
    : { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_artifact", arguments: JSON.stringify({ ref: refIn(body.messages) }) } }] };
  return {
    id: "chatcmpl-1", object: "chat.completion", created: 0, model: body.model,
    choices: [{ index: 0, message, finish_reason: answered ? "stop" : "tool_calls" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function refIn(messages) {
  const m = JSON.stringify(messages).match(/(?:artifact|ws):[A-Za-z0-9_:=-]+/g);
  if (!m) throw new Error("fake OpenAI: no artifact ID in the conversation");
  return m.at(-1);
}
