"""The dialects a turn is answered in: one table, no code per dialect.

The table is the worker's Go table (package dialects) as the clients read it, the same data as the
JavaScript client's ``dialects.js``; a test holds the two equal. Per dialect:

- ``text``: the shape of a text-only tool content (``string``, ``blocks``, ``geminiResponse``,
  ``bedrockBlocks``), for a failed call the worker did not answer.
- ``turn.answer``: the JSON template of one call's answer. String values starting with ``$`` are
  slots: ``$id`` (the call id), ``$name`` (the function name, required), ``$name?`` (the name,
  member left out when there is none), ``$content`` (the call's toolContent), ``$failed`` (true
  for a failed call, member left out otherwise), ``$status`` (``"success"``, ``"error"`` for a
  failed call). A member ``"..."`` whose value is ``$content`` spreads the content (an object)
  into the object.
- ``turn.group``: when set, every answer goes into one ``{"role": "user", group: [answers]}``
  message; else each answer is a message (or input item) of its own.

Every call's follow-up messages (``assembly.followUp``) come after the answers, in call order.
"""

from __future__ import annotations

from typing import Any, Dict

TABLE: Dict[str, Dict[str, Any]] = {
    "openai-chat": {"text": "string", "turn": {
        "answer": {"role": "tool", "tool_call_id": "$id", "content": "$content"}}},
    "openai-responses": {"text": "string", "turn": {
        "answer": {"type": "function_call_output", "call_id": "$id", "output": "$content"}}},
    "anthropic": {"text": "blocks", "turn": {
        "group": "content", "answer": {"type": "tool_result", "tool_use_id": "$id", "content": "$content", "is_error": "$failed"}}},
    # Gemini takes the responses to parallel calls together, in one content.
    "gemini": {"text": "geminiResponse", "turn": {
        "group": "parts", "answer": {"functionResponse": {"...": "$content", "id": "$id", "name": "$name"}}}},
    "bedrock-converse": {"text": "bedrockBlocks", "turn": {
        "group": "content", "answer": {"toolResult": {"toolUseId": "$id", "content": "$content", "status": "$status"}}}},
    "langchain": {"text": "blocks", "turn": {
        "answer": {"role": "tool", "tool_call_id": "$id", "name": "$name?", "content": "$content"}}},
    "langchain-js": {"text": "blocks", "turn": {
        "answer": {"role": "tool", "tool_call_id": "$id", "name": "$name?", "content": "$content"}}},
}

#: Dialect names, the default (openai-chat) first.
DIALECTS = tuple(TABLE)


def needs_name(dialect: Dict[str, Any]) -> bool:
    """Every call of a turn in this dialect needs its function name."""
    return _has(dialect["turn"]["answer"], lambda k, v: v == "$name")


def content_object(dialect: Dict[str, Any]) -> bool:
    """A call's toolContent must be a JSON object (it is spread into the answer)."""
    return _has(dialect["turn"]["answer"], lambda k, v: k == "..." and v == "$content")


def render(template: Dict[str, Any], call_id: str, name: str, content: Any, failed: bool) -> Dict[str, Any]:
    """One call's answer from a template (see the module's doc)."""
    out: Dict[str, Any] = {}
    for key, value in template.items():
        if isinstance(value, dict):
            out[key] = render(value, call_id, name, content, failed)
        elif key == "..." and value == "$content":
            out.update(content)
        elif value == "$id":
            out[key] = call_id
        elif value == "$name":
            out[key] = name
        elif value == "$name?":
            if name:
                out[key] = name
        elif value == "$content":
            out[key] = content
        elif value == "$failed":
            if failed:
                out[key] = True
        elif value == "$status":
            out[key] = "error" if failed else "success"
        else:
            out[key] = value
    return out


def text_content(text: str, shape: str) -> Any:
    """A text's tool content in a text shape, as the worker assembles a text."""
    if shape == "blocks":
        return [{"type": "text", "text": text}] if text else []
    if shape == "geminiResponse":
        return {"response": {"output": text}}
    if shape == "bedrockBlocks":  # Converse requires a content block, and a text one not blank
        return [{"text": text or "(empty)"}]
    return text


def _has(template: Dict[str, Any], pred) -> bool:
    for k, v in template.items():
        if isinstance(v, dict):
            if _has(v, pred):
                return True
        elif pred(k, v):
            return True
    return False
