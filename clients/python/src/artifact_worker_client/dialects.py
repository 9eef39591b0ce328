"""The dialects a turn is answered in: one table, no code per dialect.

Each row says how the answers to the calls of one assistant turn are put together, in the same
terms as the worker's Go table (package dialects: Turn.Group, Turn.Answer):

- ``answer``: the JSON template of one call's answer. String values starting with ``$`` are slots:
  ``$id`` (the call id), ``$name`` (the function name, required), ``$name?`` (the name, member
  left out when there is none), ``$content`` (the call's toolContent), ``$failed`` (true for a
  failed call, member left out otherwise), ``$status`` (``"success"``, ``"error"`` for a failed
  call). A member ``"..."`` whose value is ``$content`` spreads the content (an object) into the
  object.
- ``group``: when set, every answer goes into one ``{"role": "user", group: [answers]}`` message;
  else each answer is a message (or input item) of its own.
- ``follow_ups``: the dialect may carry media in follow-up messages (``assembly.followUp``); they
  come after every answer, in call order.
- ``text``: the shape of a text-only tool content, for a failed call the worker did not answer.
"""

from __future__ import annotations

from typing import Any, Dict, List

TABLE: List[Dict[str, Any]] = [
    {"name": "openai-chat", "group": "", "follow_ups": True, "text": "string",
     "answer": {"role": "tool", "tool_call_id": "$id", "content": "$content"}},
    {"name": "openai-responses", "group": "", "follow_ups": False, "text": "string",
     "answer": {"type": "function_call_output", "call_id": "$id", "output": "$content"}},
    {"name": "anthropic", "group": "content", "follow_ups": False, "text": "blocks",
     "answer": {"type": "tool_result", "tool_use_id": "$id", "content": "$content", "is_error": "$failed"}},
    # Gemini takes the responses to parallel calls together, in one content.
    {"name": "gemini", "group": "parts", "follow_ups": True, "text": "geminiResponse",
     "answer": {"functionResponse": {"...": "$content", "id": "$id", "name": "$name"}}},
    {"name": "bedrock-converse", "group": "content", "follow_ups": False, "text": "bedrockBlocks",
     "answer": {"toolResult": {"toolUseId": "$id", "content": "$content", "status": "$status"}}},
    {"name": "langchain", "group": "", "follow_ups": False, "text": "blocks",
     "answer": {"role": "tool", "tool_call_id": "$id", "name": "$name?", "content": "$content"}},
]

#: Dialect names, the default (openai-chat) first.
DIALECTS = tuple(d["name"] for d in TABLE)
BY_NAME = {d["name"]: d for d in TABLE}


def needs_name(dialect: Dict[str, Any]) -> bool:
    """Every call of a turn in this dialect needs its function name."""
    return _has(dialect["answer"], lambda k, v: v == "$name")


def content_object(dialect: Dict[str, Any]) -> bool:
    """A call's toolContent must be a JSON object (it is spread into the answer)."""
    return _has(dialect["answer"], lambda k, v: k == "..." and v == "$content")


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
