"""assemble_turn: the messages answering every tool call of one assistant turn."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import dialects
from .errors import WorkerError


class TurnError(ValueError):
    """The calls cannot form one turn (no calls, a call without id, of another dialect, ...)."""


def assemble_turn(calls: Sequence[Mapping[str, Any]], dialect: Optional[str] = None, locale: Optional[str] = None,
                  limits: Optional[Mapping[str, Any]] = None) -> List[Dict[str, Any]]:
    """The messages (for openai-responses, the input items) that answer every tool call of one
    assistant turn, in call order, in the dialect of the results' ``assembly``; the same as the Go
    client's ``client.Turn`` and the JavaScript client's ``assembleTurn``. Append them to the
    conversation after the assistant message that made the calls.

    ``calls``: one mapping per call, ``{"id": ..., "name": ..., "result": result}`` for a call the
    worker answered (the result of ``get_artifact`` or ``get_history_image``), or ``{"id": ...,
    "name": ..., "error": err}`` for one that failed: a ``WorkerError`` is answered with the tool
    result the worker put in it (``err.assembly``, when its dialect is the turn's), any other
    exception with its text, so the model learns what happened.

    - openai-chat: one tool message per call, then every follow-up message in call order (OpenAI
      needs every tool message before any other message).
    - openai-responses: one function_call_output item per call.
    - anthropic: one user message holding a tool_result block per call (is_error for a failed call).
    - gemini: one user content holding a functionResponse part per call (``name`` required), then
      every follow-up content in call order.
    - bedrock-converse: one user message holding a toolResult block per call (status "success",
      "error" for a failed call).
    - langchain: one tool message per call (tool_call_id, name when given, content).

    The turn stays within the per-request limits of the model's provider (the assemblies'
    ``requestLimits``, or ``limits``): media past a limit (images per request, image or request
    bytes, PDF pages) is left out, a text part in its place saying so (in ``locale``, "zh" by
    default). For bedrock-converse every document's name gets its call id ("report [call_1]"):
    Converse refuses a request whose documents share a name.

    ``dialect``: the turn's; by default the first result's, else the first worker error's
    assembly's, else openai-chat. Raises TurnError.
    """
    if not calls:
        raise TurnError("assemble_turn: no calls")
    if dialect is None:
        dialect = next((c["result"]["assembly"]["dialect"] for c in calls if (c.get("result") or {}).get("assembly")), None)
    if dialect is None:
        dialect = next((a["dialect"] for a in (_worker_assembly(c.get("error")) for c in calls) if a), None)
    if dialect is None:
        dialect = dialects.DIALECTS[0]
    d = dialects.TABLE.get(dialect)
    if d is None:
        raise TurnError(f"assemble_turn: dialect {json.dumps(dialect)} is not supported ({', '.join(dialects.DIALECTS)})")
    answers, follow_ups = [], []
    for i, c in enumerate(calls):
        call_id, name = c.get("id"), c.get("name") or ""
        if not call_id:
            raise TurnError(f"assemble_turn: call {i} has no id")
        if c.get("result") is not None:
            a = c["result"].get("assembly")
            if not a:
                raise TurnError(f'assemble_turn: call {call_id} has no assembly (its request asked for media "result")')
            if a.get("dialect") != dialect:
                raise TurnError(f"assemble_turn: call {call_id} has dialect {a.get('dialect')}, the turn {dialect}")
            failed = False
        elif c.get("error") is not None:
            wa = _worker_assembly(c["error"])
            a = wa if wa and wa.get("dialect") == dialect else {"toolContent": dialects.text_content(_error_text(c["error"]), d["text"])}
            failed = True
        else:
            raise TurnError(f"assemble_turn: call {call_id} has neither result nor error")
        if "toolContent" not in a:
            raise TurnError(f"assemble_turn: call {call_id}: toolContent is missing")
        content = a["toolContent"]
        if d["turn"].get("documentName"):
            content = dialects.unique_document_names(content, call_id, d["turn"]["documentName"])
        if limits is None and a.get("requestLimits"):
            limits = a["requestLimits"]
        if dialects.needs_name(d) and not name:
            raise TurnError(f"assemble_turn: call {call_id} has no name ({dialect}'s answer needs it)")
        if dialects.content_object(d) and not isinstance(content, dict):
            raise TurnError(f"assemble_turn: call {call_id}: {dialect} toolContent is not an object")
        answers.append(dialects.render(d["turn"]["answer"], call_id, name, content, failed))
        follow_ups.extend(a.get("followUp") or [])
    group = d["turn"].get("group")
    if group:
        answers = [{"role": "user", group: answers}]
    messages = answers + follow_ups
    if not limits:
        return messages
    text = dialects.TURN_NOTES.get(locale or "zh", dialects.TURN_NOTES["zh"])
    note = {k: (text if v == "$text" else v) for k, v in d["turn"]["note"].items()}
    return dialects.keep_within(messages, dict(limits), note)


def _worker_assembly(err: Any) -> Optional[Dict[str, Any]]:
    """The tool result the worker made for a failed call (error.assembly), if any."""
    return err.assembly if isinstance(err, WorkerError) else None


def _error_text(err: Any) -> str:
    """What the model reads for a failed call without a worker assembly in the turn's dialect:
    the worker's message (localised), else the exception's text."""
    if isinstance(err, WorkerError):
        return err.message
    return str(err)
