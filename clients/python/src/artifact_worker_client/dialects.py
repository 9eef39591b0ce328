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

import base64
import binascii
import re
from typing import Any, Dict, List

TABLE: Dict[str, Dict[str, Any]] = {
    "openai-chat": {"text": "string", "turn": {
        "answer": {"role": "tool", "tool_call_id": "$id", "content": "$content"}, "note": {"type": "text", "text": "$text"}}},
    "openai-responses": {"text": "string", "turn": {
        "answer": {"type": "function_call_output", "call_id": "$id", "output": "$content"}, "note": {"type": "input_text", "text": "$text"}}},
    "anthropic": {"text": "blocks", "turn": {
        "group": "content", "answer": {"type": "tool_result", "tool_use_id": "$id", "content": "$content", "is_error": "$failed"}, "note": {"type": "text", "text": "$text"}}},
    # Gemini takes the responses to parallel calls together, in one content.
    "gemini": {"text": "geminiResponse", "turn": {
        "group": "parts", "answer": {"functionResponse": {"...": "$content", "id": "$id", "name": "$name"}}, "note": {"text": "$text"}}},
    "bedrock-converse": {"text": "bedrockBlocks", "turn": {
        "group": "content", "answer": {"toolResult": {"toolUseId": "$id", "content": "$content", "status": "$status"}}, "note": {"text": "$text"}, "documentName": "document"}},
    "langchain": {"text": "blocks", "turn": {
        "answer": {"role": "tool", "tool_call_id": "$id", "name": "$name?", "content": "$content"}, "note": {"type": "text", "text": "$text"}}},
    "langchain-js": {"text": "blocks", "turn": {
        "answer": {"role": "tool", "tool_call_id": "$id", "name": "$name?", "content": "$content"}, "note": {"type": "text", "text": "$text"}}},
}

#: The text that stands in for media a turn leaves out to stay within the per-request limits.
TURN_NOTES = {
    "zh": "[内容未发送：本次请求已达到模型接口的单次请求上限（图片数量、总大小或 PDF 页数）。请单独再次读取此内容。]",
    "en": "[Content not sent: this request reached the model API's per-request limits (images, total size or PDF pages). Read this content again on its own.]",
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


_PAYLOAD_KEYS = {"data", "bytes", "base64", "url", "image_url", "file_data"}
_PDF_PAGE = re.compile(rb"/Type\s*/Page\b")


def unique_document_names(content: Any, call_id: str, member: str) -> Any:
    """content with every document's name followed by the call id (the characters a Bedrock
    name allows), as the Go client's dialects.Turn.UniqueDocumentNames does."""
    if not isinstance(content, list):
        return content
    cid = "".join(ch for ch in str(call_id) if ch.isascii() and (ch.isalnum() or ch == "-"))[:64]
    if not cid:
        return content
    out = []
    for b in content:
        doc = b.get(member) if isinstance(b, dict) else None
        if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or doc["name"].endswith(f"[{cid}]"):
            out.append(b)
            continue
        name = f"{doc['name']} [{cid}]"
        if len(name) > 200:
            name = f"{doc['name'][:max(200 - len(cid) - 3, 1)].strip()} [{cid}]"
        out.append({**b, member: {**doc, "name": name}})
    return out


def _media_of(block: Dict[str, Any]) -> Dict[str, Any]:
    """Whether a block is a media part (a payload reached through objects only) and what it is,
    as dialects.mediaOf in Go."""
    m = {"image": False, "pdf": False, "base64": "", "has": False}
    mime = [""]

    def walk(o: Dict[str, Any], in_image: bool) -> None:
        for k, v in o.items():
            if isinstance(v, dict):
                walk(v, in_image or "image" in k)
                continue
            if isinstance(v, list):
                continue
            if k in _PAYLOAD_KEYS:
                s = v if isinstance(v, str) else ""
                if s.startswith("data:"):
                    head, sep, data = s[5:].partition(",")
                    if not sep:
                        continue
                    mime[0] = head[:-7] if head.endswith(";base64") else head
                    m["base64"], m["has"] = data, True
                elif s and k in ("data", "bytes", "base64"):
                    m["base64"], m["has"] = s, True
                if m["has"] and (in_image or "image" in k):
                    m["image"] = True
            elif k in ("mimeType", "mime_type", "media_type"):
                mime[0] = v if isinstance(v, str) else ""
            elif k == "type":
                if v in ("image", "image_url", "input_image"):
                    in_image = True
                    m["image"] = m["image"] or m["has"]
            elif k == "format" and v == "pdf":
                mime[0] = "application/pdf"
        if in_image and m["has"]:
            m["image"] = True

    walk(block, False)
    if mime[0].startswith("image/"):
        m["image"] = True
    m["pdf"] = mime[0] == "application/pdf"
    return m


def _pdf_pages(b64: str) -> int:
    try:
        return len(_PDF_PAGE.findall(base64.b64decode(b64, validate=True)))
    except (ValueError, binascii.Error):
        return 0


def keep_within(messages: List[Any], limits: Dict[str, Any], note: Dict[str, Any]) -> List[Any]:
    """The messages with every media part past the per-request limits replaced by note (dropped
    inside a Gemini function response), as dialects.Turn.KeepWithin in Go; the input is not
    modified."""
    used = {"images": 0, "image_bytes": 0, "all": 0, "pages": 0}
    lim = {k: limits.get(k) or 0 for k in ("maxImages", "maxImageBytes", "maxBytes", "maxPdfPages")}

    def fits(m: Dict[str, Any]) -> bool:
        size = len(m["base64"])
        images = used["images"] + (1 if m["image"] else 0)
        image_bytes = used["image_bytes"] + (size if m["image"] else 0)
        pages = used["pages"] + (_pdf_pages(m["base64"]) if m["pdf"] and lim["maxPdfPages"] > 0 else 0)
        if (lim["maxImages"] > 0 and images > lim["maxImages"]) or (lim["maxImageBytes"] > 0 and image_bytes > lim["maxImageBytes"]) \
                or (lim["maxBytes"] > 0 and used["all"] + size > lim["maxBytes"]) or (lim["maxPdfPages"] > 0 and pages > lim["maxPdfPages"]):
            return False
        used.update(images=images, image_bytes=image_bytes, pages=pages, all=used["all"] + size)
        return True

    def walk(v: Any) -> Any:
        if isinstance(v, list):
            out = []
            for c in v:
                if not isinstance(c, dict):
                    out.append(c)
                    continue
                m = _media_of(c)
                out.append((c if fits(m) else note) if m["has"] else walk(c))
            return out
        if not isinstance(v, dict):
            return v
        out: Dict[str, Any] = {}
        for k, c in v.items():
            if k == "parts" and isinstance(c, list) and "response" in v:  # a Gemini functionResponse: media only
                kept = [p for p in c if not (isinstance(p, dict) and _media_of(p)["has"]) or fits(_media_of(p))]
                if kept:
                    out[k] = kept
                continue
            out[k] = walk(c)
        return out

    return [walk(m) for m in messages]
