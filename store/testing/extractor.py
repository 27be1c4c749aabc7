"""The emulation's deterministic extractor: what the emulated Bedrock Converse answers
when a strategy asks it for memories, so the whole pipeline runs offline with results a
test can predict.

It reads the transcript the request quotes, one message per line as
`[<message id>] <role>: <text>` (`Transcript.render`), and turns each first-person
statement of a `human` message into a fact, one per sentence (split at `.`, `!`, `?`, `;`):

- `I prefer X` (also like, love, hate, dislike, use, want, need, live, work, drive, own,
  speak, eat, drink) -> `User prefers X`;
- `I am X` / `I'm X` -> `User is X`; `I have X` -> `User has X`;
- `My X is Y` -> `User's X is Y`;
- `Actually, (now) <statement>` -> the statement's fact, marked `"correction": true`.

Every other sentence, and every message of another role, yields nothing. Each fact names
the message it came from (`message_ids`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

LINE = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<role>\w+): (?P<text>.*)$")
SENTENCE = re.compile(r"[^.!?;]+")
VERBS = "prefer|like|love|hate|dislike|use|want|need|live|work|drive|own|speak|eat|drink"
CORRECTION = re.compile(r"^actually,?\s+(?:now,?\s+)?(?P<rest>.+)$", re.I)
RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(rf"^i ({VERBS}) (?P<rest>.+)$", re.I),
        lambda m: f"User {m[1].lower()}s {m['rest']}",
    ),
    (re.compile(r"^(?:i am|i'm) (?P<rest>.+)$", re.I), lambda m: f"User is {m['rest']}"),
    (re.compile(r"^i have (?P<rest>.+)$", re.I), lambda m: f"User has {m['rest']}"),
    (
        re.compile(r"^my (?P<what>.+?) (?P<verb>is|are) (?P<rest>.+)$", re.I),
        lambda m: f"User's {m['what']} {m['verb']} {m['rest']}",
    ),
)


def statement_fact(sentence: str) -> tuple[str, bool] | None:
    """The fact one sentence states, and whether it is a correction (None: no fact)."""
    sentence = sentence.strip().strip(",;:").strip()
    correction = CORRECTION.match(sentence)
    if correction:
        found = statement_fact(correction["rest"])
        return (found[0], True) if found else None
    for pattern, fact in RULES:
        matched = pattern.match(sentence)
        if matched:
            return fact(matched), False
    return None


def extract_facts(transcript: str) -> list[dict[str, Any]]:
    """The facts in a rendered transcript, in message and sentence order."""
    facts: list[dict[str, Any]] = []
    for line in transcript.splitlines():
        matched = LINE.match(line.strip())
        if matched is None or matched["role"] != "human":
            continue
        for sentence in SENTENCE.findall(matched["text"]):
            found = statement_fact(sentence)
            if found:
                text, correction = found
                fact: dict[str, Any] = {"text": text, "message_ids": [matched["id"]]}
                if correction:
                    fact["correction"] = True
                facts.append(fact)
    return facts
