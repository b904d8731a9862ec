"""OpenAI-compatible chat-completions client (any server speaking that protocol).

Configured by ``LEXLOGIC_LLM_BASE_URL``, ``LEXLOGIC_LLM_MODEL`` and ``LEXLOGIC_LLM_API_KEY`` (fields of the
one ``Settings``). When the base URL is unset, ``LLMClient.from_settings(settings)`` returns None and the
edge passes None down: callers use their offline path.
Outputs are validated (JSON schema via Pydantic) and retried a bounded number of times; the error of a
failed attempt is sent back to the model so it can correct itself.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from lexlogic.logic.errors import UnavailableError
from lexlogic.settings import Settings

T = TypeVar("T", bound=BaseModel)


class LLMError(UnavailableError, RuntimeError):
    """The endpoint failed or never produced a valid answer within the retry budget."""


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: str  # raw JSON text, as the protocol sends it

    def parsed_arguments(self) -> dict[str, Any]:
        """Decode the arguments; raises ValueError with a readable message on bad JSON."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments of {self.name} are not valid JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise ValueError(f"arguments of {self.name} must be a JSON object")
        return value


class ChatReply(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = []
    raw_message: dict[str, Any] = {}
    usage_tokens: int = 0


class LLMClient:
    """A thin client: one method per protocol use, no framework."""

    def __init__(
        self, base_url: str, model: str, api_key: str = "", timeout: float = 60.0, max_retries: int = 3
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.max_retries = max_retries
        self._http = httpx.Client(timeout=timeout)

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMClient | None:
        """The configured endpoint, or None (offline) when ``settings.llm_base_url`` is unset."""
        if not settings.llm_base_url:
            return None
        return cls(settings.llm_base_url, settings.llm_model, settings.llm_api_key)

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: dict[str, Any] | None = None,
        temperature: float = 0.0,
    ) -> ChatReply:
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if tools:
            payload["tools"] = tools
            payload["tool_choice"] = tool_choice or "auto"
        if response_format:
            payload["response_format"] = response_format
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            resp = self._http.post(f"{self.base_url}/chat/completions", json=payload, headers=headers)
            resp.raise_for_status()
            body = resp.json()
            message = body["choices"][0]["message"]
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
            raise LLMError(f"chat completion failed at {self.base_url}: {exc}") from exc
        calls = [
            ToolCall(
                id=c.get("id", f"call_{i}"),
                name=c["function"]["name"],
                arguments=c["function"].get("arguments") or "{}",
            )
            for i, c in enumerate(message.get("tool_calls") or [])
        ]
        usage = (body.get("usage") or {}).get("total_tokens", 0)
        return ChatReply(content=message.get("content"), tool_calls=calls, raw_message=message, usage_tokens=usage)

    def complete_json(self, messages: list[dict[str, Any]], schema: type[T]) -> T:
        """Ask for JSON matching ``schema``; on invalid output, tell the model why and retry."""
        convo = list(messages)
        rf = {"type": "json_schema", "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()}}
        last_error = ""
        for _ in range(self.max_retries):
            reply = self.chat(convo, response_format=rf)
            text = (reply.content or "").strip()
            if text.startswith("```"):
                text = text.strip("`").removeprefix("json").strip()
            try:
                return schema.model_validate_json(text)
            except ValidationError as exc:
                last_error = str(exc)
                convo += [
                    {"role": "assistant", "content": reply.content or ""},
                    {"role": "user", "content": f"Invalid output, fix it and answer JSON only: {last_error}"},
                ]
        raise LLMError(f"no valid {schema.__name__} after {self.max_retries} attempts: {last_error}")


def tool_result_message(call: ToolCall, content: str) -> dict[str, Any]:
    """The message that returns a tool's result (or error) to the model."""
    return {"role": "tool", "tool_call_id": call.id, "content": content}
