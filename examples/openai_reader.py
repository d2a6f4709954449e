"""A reader plug-in that asks a local OpenAI-compatible server (llama.cpp's llama-server, vLLM,
Ollama, LM Studio, ...) through the `openai` client directly, not through litellm.

    export LOCAL_OPENAI_BASE_URL=http://127.0.0.1:8080/v1
    dvc exp run -S reader=plugin -S reader.options.model=qwen2.5-7b-instruct

The server's address comes from the environment variable named by `base_url_env` (and the key,
if the server wants one, from `api_key_env`), so moving the server reruns nothing: only
`options` (model, prompt knobs, prices) are part of the plug-in's identity. `answer` is async,
so memrecall runs up to `reader.runtime.concurrency` questions at once; its retries are memrecall's
(the client's own are off, so no request is resent unseen). Usage comes from the server's
`usage` field; cost from `input_cost_per_mtok` / `output_cost_per_mtok` (0 for a local server).
It returns a plain dict, so it needs nothing from memrecall.
"""

from __future__ import annotations

import json
import os

PROMPT = """I will give you several past chat sessions between you and a user, each with its date.
Answer the question from the relevant chat history. If the history does not contain the
answer, say that the information is not available.

{history}

Current date: {today}
Question: {question}
Answer (short):"""


class OpenAIReader:
    def __init__(
        self,
        model: str,
        base_url_env: str = "LOCAL_OPENAI_BASE_URL",
        api_key_env: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
        max_chars_per_session: int = 4000,
        input_cost_per_mtok: float = 0.0,
        output_cost_per_mtok: float = 0.0,
    ):
        self.model, self.base_url_env, self.api_key_env = model, base_url_env, api_key_env
        self.temperature, self.max_tokens = float(temperature), int(max_tokens)
        self.max_chars = int(max_chars_per_session)
        self.prices = (float(input_cost_per_mtok), float(output_cost_per_mtok))
        self._client = None

    def client(self):
        """Made on first use, inside the event loop that memrecall runs the answers on."""
        if self._client is None:
            from openai import AsyncOpenAI

            base_url = os.environ.get(self.base_url_env)
            if not base_url:
                raise RuntimeError(
                    f"set ${self.base_url_env} to the server's URL (e.g. http://127.0.0.1:8080/v1)"
                )
            key = os.environ.get(self.api_key_env) if self.api_key_env else None
            self._client = AsyncOpenAI(
                base_url=base_url, api_key=key or "not-needed", max_retries=0
            )
        return self._client

    def messages(self, question) -> list[dict]:
        # Sessions in date order, as LongMemEval's reader prompt shows them.
        sessions = sorted(question.sessions, key=lambda s: s.date or "")
        history = (
            "\n\n".join(
                f"### Session {i} (date: {s.date})\n"
                + json.dumps(
                    [{"role": t.role, "content": t.content} for t in s.turns], ensure_ascii=False
                )[: self.max_chars]
                for i, s in enumerate(sessions, 1)
            )
            or "(no past sessions)"
        )
        return [
            {
                "role": "user",
                "content": PROMPT.format(
                    history=history, today=question.question_date, question=question.question
                ),
            }
        ]

    async def answer(self, question) -> dict:
        resp = await self.client().chat.completions.create(
            model=self.model,
            messages=self.messages(question),
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
        if not resp.choices:
            raise ValueError("the server answered without choices")
        usage = resp.usage
        n_in = int(getattr(usage, "prompt_tokens", 0) or 0)
        n_out = int(getattr(usage, "completion_tokens", 0) or 0)
        return {
            "text": (resp.choices[0].message.content or "").strip(),
            "model": resp.model or self.model,
            "input_tokens": n_in,
            "output_tokens": n_out,
            "cost_usd": (self.prices[0] * n_in + self.prices[1] * n_out) / 1e6,
        }
