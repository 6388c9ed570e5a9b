"""A client for any OpenAI-compatible chat endpoint: Ollama, llama.cpp's server, vLLM, OpenAI.

Only the mock interview uses it, and only when an endpoint is configured
(:class:`EndpointConfig`: environment variables ``SYSDRILL_LLM_BASE_URL``,
``SYSDRILL_LLM_MODEL`` and ``SYSDRILL_LLM_API_KEY``, else the server's stored
setting). Nothing is sent anywhere otherwise.

A reply streams: ``POST {base_url}/chat/completions`` with ``"stream": true``
answers server-sent events, one ``data: {json}`` line per chunk and ``data:
[DONE]`` at the end (httpx's streaming API reads them as they come). A server
that ignores ``stream`` and answers one JSON document is read too. The request
is tried again once when the endpoint cannot be reached or answers 5xx or 429
before any text came; anything else, or a second failure, raises
:class:`~sysdrill.errors.ModelUnavailable` with a one-line reason, and the
interview goes on with the built-in conductor.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sysdrill.errors import ModelUnavailable, UsageError

if TYPE_CHECKING:
    import httpx

    from sysdrill.study.interview_prompt import ChatMessage

__all__ = [
    "API_KEY_VARIABLE",
    "BASE_URL_VARIABLE",
    "MODEL_VARIABLE",
    "ChatClient",
    "EndpointConfig",
    "endpoint_from_environment",
]

BASE_URL_VARIABLE = "SYSDRILL_LLM_BASE_URL"
"""The endpoint's base URL, such as ``http://127.0.0.1:11434/v1`` (Ollama)."""
MODEL_VARIABLE = "SYSDRILL_LLM_MODEL"
"""The model name the endpoint knows, such as ``llama3.2:3b``."""
API_KEY_VARIABLE = "SYSDRILL_LLM_API_KEY"
"""The bearer token, when the endpoint wants one (OpenAI's API does; local servers do not)."""

CONNECT_TIMEOUT_S = 5.0
"""Seconds to open a connection to the endpoint."""
READ_TIMEOUT_S = 120.0
"""Seconds to wait for the next piece of a reply (a small CPU model's first token is slow)."""
MAX_REPLY_TOKENS = 400
"""Tokens one interviewer turn may take at most."""
ATTEMPTS = 2
"""Tries per request: the first, and one more after a connection failure, 5xx or 429."""


@dataclass(frozen=True, slots=True)
class EndpointConfig:
    """Where the interview's text goes: an OpenAI-compatible endpoint and a model."""

    base_url: str
    """The API root, ``/chat/completions`` is added to it (``http://host:port/v1``)."""
    model: str
    api_key: str = ""
    """Bearer token; empty for none. Never shown or exported."""

    def __post_init__(self) -> None:
        """Check the URL and model name.

        Raises:
            UsageError: If the URL is not http(s) with a host, or the model is empty.
        """
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(
                f"The model endpoint must be an http:// or https:// URL such as "
                f"http://127.0.0.1:11434/v1; got {self.base_url[:200]!r}."
            )
        if not self.model.strip():
            raise UsageError("Name the model the endpoint serves (such as llama3.2:3b).")

    @property
    def completions_url(self) -> str:
        """The chat completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    def to_public_dict(self) -> dict[str, Any]:
        """What may be shown: the URL, the model, and whether a key is set (never the key)."""
        return {"base_url": self.base_url, "model": self.model, "has_api_key": bool(self.api_key)}


def endpoint_from_environment(environ: Mapping[str, str] | None = None) -> EndpointConfig | None:
    """The endpoint the environment variables name; None when the base URL is unset.

    Raises:
        UsageError: If the base URL is set but invalid, or the model is missing.
    """
    env = os.environ if environ is None else environ
    base_url = env.get(BASE_URL_VARIABLE, "").strip()
    if not base_url:
        return None
    model = env.get(MODEL_VARIABLE, "").strip()
    if not model:
        raise UsageError(f"{BASE_URL_VARIABLE} is set: set {MODEL_VARIABLE} to a model name too.")
    return EndpointConfig(base_url, model, env.get(API_KEY_VARIABLE, "").strip())


def _reason(exc: BaseException) -> str:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return "it did not answer in time"
    if isinstance(exc, httpx.ConnectError):
        return "nothing accepts connections there"
    if isinstance(exc, httpx.HTTPError):
        return f"the connection failed ({type(exc).__name__})"
    return str(exc)


class _Retry(Exception):
    """A failure worth one more try (connection refused, 5xx, 429)."""


class ChatClient:
    """Streams chat replies from one endpoint; owns its HTTP connection pool."""

    def __init__(
        self,
        config: EndpointConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
        read_timeout_s: float = READ_TIMEOUT_S,
    ) -> None:
        """Prepare a client for ``config`` (nothing is sent yet).

        Args:
            config: The endpoint and model.
            transport: An httpx transport (tests pass an in-memory one).
            connect_timeout_s: Seconds to connect.
            read_timeout_s: Seconds to wait for each piece of the reply.
        """
        import httpx

        self.config = config
        headers = {"Accept": "text/event-stream"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(read_timeout_s, connect=connect_timeout_s),
            transport=transport,
            # The endpoint is what the learner named: no proxy from the environment.
            trust_env=False,
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stream_reply(self, messages: Sequence[ChatMessage]) -> Iterator[str]:
        """The reply's text, piece by piece as the endpoint streams it.

        Raises:
            ModelUnavailable: If the endpoint cannot be reached (after one more
                try), answers an error, or answers something that is not a chat
                completion; the message is one line naming the endpoint and why.
        """
        body = {
            "model": self.config.model,
            "messages": [m.to_dict() for m in messages],
            "stream": True,
            "temperature": 0.3,
            "max_tokens": MAX_REPLY_TOKENS,
        }
        where = self.config.base_url
        for attempt in range(1, ATTEMPTS + 1):
            started = False
            try:
                for piece in self._attempt(body):
                    started = True
                    yield piece
                return
            except _Retry as exc:
                if attempt == ATTEMPTS:
                    raise ModelUnavailable(f"The model endpoint {where} failed: {exc}.") from exc
            except ModelUnavailable:
                raise
            except Exception as exc:
                import httpx

                if not isinstance(exc, httpx.HTTPError):
                    raise
                retry = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
                if started or not retry or attempt == ATTEMPTS:
                    raise ModelUnavailable(
                        f"The model endpoint {where} is unavailable: {_reason(exc)}."
                    ) from exc

    def _attempt(self, body: dict[str, Any]) -> Iterator[str]:
        where = self.config.base_url
        with self._client.stream("POST", self.config.completions_url, json=body) as response:
            status = response.status_code
            if status >= 500 or status == 429:
                raise _Retry(f"it answered HTTP {status}")
            if status >= 400:
                response.read()
                detail = response.text.strip().splitlines()[0][:200] if response.text else ""
                raise ModelUnavailable(
                    f"The model endpoint {where} refused the request (HTTP {status}"
                    + (f": {detail}" if detail else "")
                    + "); check the model name and API key."
                )
            kind = response.headers.get("content-type", "")
            if "text/event-stream" not in kind:
                response.read()
                yield _whole_reply(response.text, where)
                return
            for line in response.iter_lines():
                text = _event_text(line, where)
                if text is None:
                    return
                if text:
                    yield text


def _whole_reply(text: str, where: str) -> str:
    """The message of a chat completion answered in one document (no streaming)."""
    try:
        data = json.loads(text)
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ModelUnavailable(
            f"The model endpoint {where} answered something that is not a chat completion."
        ) from exc
    return str(content or "")


def _event_text(line: str, where: str) -> str | None:
    """The text one server-sent event line adds; None at ``data: [DONE]``."""
    if not line.startswith("data:"):
        return ""  # comments, blank separators, event names
    payload = line[5:].strip()
    if payload == "[DONE]":
        return None
    try:
        data = json.loads(payload)
    except ValueError as exc:
        raise ModelUnavailable(
            f"The model endpoint {where} streamed something that is not JSON."
        ) from exc
    if not isinstance(data, dict):
        return ""
    if "error" in data:
        message = data["error"].get("message") if isinstance(data["error"], dict) else None
        raise ModelUnavailable(
            f"The model endpoint {where} reported an error: {str(message or data['error'])[:200]}."
        )
    choices = data.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        return ""
    delta = choices[0].get("delta") or {}
    content = delta.get("content") if isinstance(delta, dict) else None
    return content if isinstance(content, str) else ""
