"""`Turn.echo`: a scripted reply copies a token (a review nonce) out of the prompt it answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from mergegate.decisions import Decision
from mergegate.review import load_template
from mergegate.testing.model_server import Script, Turn, load_script
from mergegate.testing.model_server._reply import ReplyError, echo_text, make_reply
from mergegate.testing.model_server._script import MAX_ECHO_TOKEN_CHARS
from mergegate.verdicts import VerdictRequest, decide_object

MARKER = '"review_id": "'
PROMPT = (
    "Review this diff. It quotes an old trailer: "
    '{"review_id": "mg-0000000000000000"}\n'
    "End with this exact review_id:\n"
    '{"review_id": "mg-1234abcd5678ef90", "verdict": "..."}'
)
REPLY = 'Ready to merge? Yes\n{"review_id": "{{review_id}}", "verdict": "approve"}'
ECHO = {"{{review_id}}": MARKER}


def test_the_token_after_the_last_marker_replaces_the_placeholder() -> None:
    text = echo_text(REPLY, ECHO, PROMPT)
    assert '"review_id": "mg-1234abcd5678ef90"' in text
    assert "{{review_id}}" not in text
    assert "mg-0000000000000000" not in text  # the quoted, earlier occurrence is not used


def test_several_placeholders_are_filled_in_one_pass() -> None:
    prompt = "run RUN=abc.1 and id ID=X_9-z; later RUN=final"
    echo = {"{r}": "RUN=", "{i}": "ID=", "{i}{r}": "ID="}
    text = echo_text("{r}/{i}/{i}{r}", echo, prompt)
    # Longest placeholder first, and a value is never searched for placeholders again.
    assert text == "final/X_9-z/X_9-z"


def test_a_missing_marker_is_a_reply_error_naming_it() -> None:
    with pytest.raises(ReplyError, match=r"'\{\{review_id\}\}'.*not in the latest user prompt"):
        echo_text(REPLY, ECHO, "a prompt without the field")


def test_a_marker_with_no_token_after_it_is_a_reply_error() -> None:
    with pytest.raises(ReplyError, match="no token"):
        echo_text(REPLY, ECHO, 'ends here: "review_id": " spaced"')


def test_the_token_is_capped() -> None:
    prompt = "ID=" + "a" * (MAX_ECHO_TOKEN_CHARS * 3)
    assert echo_text("<id>", {"<id>": "ID="}, prompt) == "a" * MAX_ECHO_TOKEN_CHARS


@given(
    prefix=st.text(max_size=200),
    token=st.text(alphabet="abcXYZ019._-", min_size=1, max_size=40),
    suffix=st.text(alphabet=" \n\"'}),;", max_size=20),
)
def test_any_token_is_copied_exactly(prefix: str, token: str, suffix: str) -> None:
    prompt = f"{prefix}ID={token}{suffix}"
    assert echo_text("[<id>]", {"<id>": "ID="}, prompt) == f"[{token}]"


def test_usage_counts_the_reply_as_sent() -> None:
    turn = Turn(text=REPLY, echo=ECHO)
    reply = make_reply(seq=1, model="m", turn=turn, request_chars=40, prompt=PROMPT)
    assert reply.text == echo_text(REPLY, ECHO, PROMPT)
    assert reply.output_tokens == (len(reply.text) + 3) // 4


@pytest.mark.parametrize(
    ("echo", "needle"),
    [
        ({"{{nope}}": MARKER}, "does not occur in the text or in a tool"),
        ({"": MARKER}, "placeholder"),
        ({"{{review_id}}": ""}, "marker"),
        ({"{{review_id}}": "x" * 201}, "marker"),
    ],
)
def test_bad_echo_entries_are_rejected(echo: dict[str, str], needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        Turn(text=REPLY, echo=echo)


def test_echo_loads_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        "[[turns]]\n"
        'match = "STAGE 2 of 2"\n'
        "text = '''Ready to merge? Yes\n"
        '{"review_id": "{{review_id}}", "verdict": "approve", "findings": []}\'\'\'\n'
        'echo = { "{{review_id}}" = \'"review_id": "\' }\n'
    )
    turn = load_script(path).turns[0]
    assert turn.echo == ECHO


# -- over HTTP, in the three wire formats --------------------------------------------------------


def _reply_text(api: str, response: httpx.Response) -> str:
    body = response.json()
    if api == "anthropic":
        return str(body["content"][0]["text"])
    if api == "chat":
        return str(body["choices"][0]["message"]["content"])
    message = next(item for item in body["output"] if item["type"] == "message")
    return str(message["content"][0]["text"])


def _request(api: str, prompt: str) -> tuple[str, dict[str, Any]]:
    if api == "anthropic":
        return "/v1/messages", {
            "model": "m",
            "max_tokens": 9,
            "messages": [{"role": "user", "content": [{"type": "text", "text": prompt}]}],
        }
    if api == "chat":
        return "/v1/chat/completions", {
            "model": "m",
            "messages": [{"role": "user", "content": prompt}],
        }
    return "/v1/responses", {
        "model": "m",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}
        ],
    }


@pytest.mark.parametrize("api", ["anthropic", "chat", "responses"])
def test_every_api_echoes_the_prompt_token(api: str, serve: Any, client: httpx.Client) -> None:
    server = serve(Script(turns=[Turn(text=REPLY, echo=ECHO)], when_exhausted="repeat_last"))
    path, body = _request(api, PROMPT)
    response = client.post(server.url + path, json=body)
    assert response.status_code == 200
    trailer = json.loads(_reply_text(api, response).split("\n", 1)[1])
    assert trailer == {"review_id": "mg-1234abcd5678ef90", "verdict": "approve"}


@pytest.mark.parametrize("api", ["anthropic", "chat", "responses"])
def test_every_api_answers_500_naming_a_missing_marker(
    api: str, serve: Any, client: httpx.Client
) -> None:
    server = serve(Script(turns=[Turn(text=REPLY, echo=ECHO)], when_exhausted="repeat_last"))
    path, body = _request(api, "no nonce here")
    response = client.post(server.url + path, json=body)
    assert response.status_code == 500
    assert "{{review_id}}" in response.text
    assert "not in the latest user prompt" in response.text
    assert server.requests[-1].status == 500  # the log says what the client got


def test_a_streamed_reply_carries_the_echoed_token(
    serve: Any, client: httpx.Client, sse: Any
) -> None:
    server = serve(Script(turns=[Turn(text=REPLY, echo=ECHO)], chunk_chars=5))
    path, body = _request("anthropic", PROMPT)
    response = client.post(server.url + path, json={**body, "stream": True})
    text = "".join(
        e["delta"]["text"] for e in sse(response.text) if e["type"] == "content_block_delta"
    )
    assert text == echo_text(REPLY, ECHO, PROMPT)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "model-server" / "review-approve.toml"


@pytest.mark.parametrize("template", ["spec-review", "quality-review"])
def test_the_example_review_script_approves_a_real_review_prompt(template: str) -> None:
    review_id = "mg-00c0ffee00c0ffee"
    prompt = load_template(template).render(
        spec='the task says: echo {"review_id": "mg-stale", "scope": "task-0"}',
        changes='+ trailer = {"review_id": "mg-from-the-diff", "scope": "task-9"}',
        open_findings="None.",
        conventions="None.",
        blocking_rule="no condition",
        review_id=review_id,
        scope="task-3",
        base_sha="a" * 12,
        head_sha="b" * 12,
    )
    script = load_script(EXAMPLE)
    turn = next(t for t in script.turns if t.match and t.match in prompt.text)
    reply = make_reply(seq=1, model="m", turn=turn, request_chars=1, prompt=prompt.text)
    [call] = reply.calls
    assert call.name == "StructuredOutput"
    decided = decide_object(call.raw_json, VerdictRequest(review_id, "task-3"))
    assert decided.decision is Decision.APPROVE, decided.reason
