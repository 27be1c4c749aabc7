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
    return _final(facts)


def _final(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What holds at the end of the conversation, as the prompt asks: a fact the user
    restated differently later in it (`My X is ...` twice, or a correction of the same
    subject) is dropped for the later one."""
    kept: list[dict[str, Any]] = []
    for fact in facts:
        subject = _subject(fact["text"])
        single = subject is not None and POSSESSIVE.match(_normal(fact["text"])) is not None
        if subject is not None and (single or fact.get("correction")):
            kept = [k for k in kept if (_subject(k["text"]) or ("",))[0] != subject[0]]
        kept.append(fact)
    return kept


def _human_sentences(transcript: str) -> list[tuple[str, str]]:
    """(message id, sentence) of every human message, in order."""
    found = []
    for line in transcript.splitlines():
        matched = LINE.match(line.strip())
        if matched is None or matched["role"] != "human":
            continue
        for sentence in SENTENCE.findall(matched["text"]):
            if sentence.strip():
                found.append((matched["id"], sentence.strip().strip(",;:").strip()))
    return found


# Preference verbs and the strength they state; `usually X` / `I tend to X` are implied.
STRENGTHS = {"love": "strong", "hate": "strong", "prefer": "moderate", "like": "moderate"}
STRENGTHS |= {"dislike": "moderate"}
PREFERENCE = re.compile(
    r"^(?P<now>actually,?\s+(?:now,?\s+)?)?i (?:(?P<really>really|always|never) )?"
    r"(?P<verb>love|hate|prefer|like|dislike) (?P<what>.+?)"
    r"(?: (?P<context>(?:when|for|on|in|at|during) .+))?$",
    re.I,
)
IMPLIED = re.compile(
    r"^i (?:usually|tend to|often) (?P<what>.+?)(?: (?P<context>(?:when|for|on|in|at) .+))?$",
    re.I,
)


def extract_preferences(transcript: str) -> list[dict[str, Any]]:
    """Preferences: `I love/hate X` (strong; also `I really/always ...`), `I prefer/like/
    dislike X` (moderate), `I usually/tend to/often X` (weak, implied); a trailing `when/
    for/on/in/at/during ...` clause is the context; `Actually, ...` marks a correction."""
    found: list[dict[str, Any]] = []
    for message_id, sentence in _human_sentences(transcript):
        matched = PREFERENCE.match(sentence)
        if matched:
            verb = matched["verb"].lower()
            strength = "strong" if matched["really"] else STRENGTHS[verb]
            context = matched["context"] or ""
            text = f"User {verb}s {matched['what']}" + (f" {context}" if context else "")
            found.append(
                {
                    "text": text,
                    "preference": matched["what"],
                    "context": context,
                    "strength": strength,
                    "explicit": True,
                    "message_ids": [message_id],
                    "correction": bool(matched["now"]),
                }
            )
            continue
        implied = IMPLIED.match(sentence)
        if implied:
            context = implied["context"] or ""
            found.append(
                {
                    "text": f"User usually {implied['what']}" + (f" {context}" if context else ""),
                    "preference": implied["what"],
                    "context": context,
                    "strength": "weak",
                    "explicit": False,
                    "message_ids": [message_id],
                }
            )
    return found


SUMMARY_SENTENCES = 5


def extract_summary(transcript: str) -> list[dict[str, Any]]:
    """The summary: `User said: <sentence>` for the first sentence of each human message
    (at most five, the latest), naming those messages; nothing when no human spoke."""
    firsts: dict[str, str] = {}
    for message_id, sentence in _human_sentences(transcript):
        firsts.setdefault(message_id, sentence)
    if not firsts:
        return []
    latest = list(firsts.items())[-SUMMARY_SENTENCES:]
    text = " ".join(f"User said: {sentence}." for _, sentence in latest)
    return [{"text": text, "message_ids": [message_id for message_id, _ in latest]}]


ATTEMPT = re.compile(r"^(?:i|we) tried (?P<what>.+)$", re.I)
SUCCESS = re.compile(r"\b(?:it|that) (?:worked|fixed it|helped|solved it)\b", re.I)
FAILURE = re.compile(r"\b(?:it|that) (?:failed|did not work|didn't work|broke)\b", re.I)


def extract_episodes(transcript: str) -> list[dict[str, Any]]:
    """Episodes: `I/We tried X` followed (in the same or a later human message) by an
    outcome, `it worked / fixed it / helped` (success) or `it failed / didn't work / broke`
    (failure); the lesson is `Do X` or `Avoid X`."""
    found: list[dict[str, Any]] = []
    attempt: tuple[str, str] | None = None
    for message_id, sentence in _human_sentences(transcript):
        matched = ATTEMPT.match(sentence)
        if matched:
            attempt = (message_id, matched["what"])
            continue
        success, failure = SUCCESS.search(sentence), FAILURE.search(sentence)
        if attempt is None or not (success or failure):
            continue
        what = attempt[1]
        result = "success" if success else "failure"
        found.append(
            {
                "text": f"Tried {what}: {sentence}",
                "attempt": what,
                "outcome": sentence,
                "result": result,
                "lesson": f"{'Do' if success else 'Avoid'} {what}.",
                "message_ids": list(dict.fromkeys([attempt[0], message_id])),
            }
        )
        attempt = None
    return found


KNOWN = re.compile(r"^\[(?P<n>\d+)\] (?P<text>.*)$")
NEW = re.compile(
    r"^\[c(?P<n>\d+)\](?: -> \[(?P<target>\d+)\])? (?P<text>.*?)(?P<flag> \(correction\))?$"
)
POSSESSIVE = re.compile(r"^user's (?P<what>.+?) (?:is|are) (?P<value>.+)$", re.I)
VERB_FACT = re.compile(r"^user (?P<verb>\w+) (?P<value>.+)$", re.I)


def _normal(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!")


def _subject(text: str) -> tuple[str, str] | None:
    """(subject, value) of a fact: `User's X is Y` -> ("x", "y"); `User <verb> Y` ->
    ("<verb>", "y")."""
    text = _normal(text)
    matched = POSSESSIVE.match(text)
    if matched:
        return matched["what"], matched["value"]
    matched = VERB_FACT.match(text)
    return (matched["verb"], matched["value"]) if matched else None


def consolidate(prompt: str) -> list[dict[str, Any]]:
    """Decisions for a consolidation prompt (`Known memories:` lines `[n] text`, then `New
    candidates:` lines `[cN] text`, `[cN] -> [n] text` for a fixed-key revision, with
    ` (correction)`), per candidate, first rule that holds:

    - a revision `-> [n]` updates n, the merged text being n's text then the new one's
      sentences that n does not already hold (as a model merging two summaries would);
    - a known memory with the same text: noop;
    - `User's X is Y` against a known `User's X is Z`: update when Y extends Z (starts with
      it), else supersede (the newest statement wins);
    - a correction `User <verb> Y` supersedes the first known memory with the same verb;
    - `User <verb> Y` against a known `User <other verb> Y` (same object): update;
    - else add."""
    known: list[str] = []
    decisions: list[dict[str, Any]] = []
    for line in prompt.splitlines():
        line = line.strip()
        new = NEW.match(line)
        if new:
            decisions.append(_decide(int(new["n"]), new, known))
            continue
        old = KNOWN.match(line)
        if old:
            known.append(old["text"])
    return decisions


def _decide(n: int, new: re.Match[str], known: list[str]) -> dict[str, Any]:
    text = new["text"]
    if new["target"] is not None:
        target = int(new["target"])
        have = known[target]
        extra = [part for part in re.split(r"(?<=\.)\s+", text) if part and part not in have]
        merged = " ".join([have, *extra])
        return {"candidate": n, "action": "update", "target": target, "text": merged}
    for i, old in enumerate(known):
        if _normal(old) == _normal(text):
            return {"candidate": n, "action": "noop", "target": i}
    mine = _subject(text)
    for i, old in enumerate(known):
        theirs = _subject(old)
        if mine is None or theirs is None:
            continue
        possessive = POSSESSIVE.match(_normal(text)) and POSSESSIVE.match(_normal(old))
        if possessive and mine[0] == theirs[0]:
            if mine[1].startswith(theirs[1]):
                return {"candidate": n, "action": "update", "target": i, "text": text}
            return {"candidate": n, "action": "supersede", "target": i}
        if not possessive and new["flag"] and mine[0] == theirs[0]:
            return {"candidate": n, "action": "supersede", "target": i}
        if not possessive and mine[1] == theirs[1] and mine[0] != theirs[0]:
            return {"candidate": n, "action": "update", "target": i, "text": text}
    return {"candidate": n, "action": "add"}


def fill_schema(schema: dict[str, Any], transcript: str) -> list[dict[str, Any]]:
    """For a custom schema (`memories`: array of objects): one memory per fact
    `extract_facts` finds, string properties holding the fact's text, enums their first
    value, numbers 0, booleans the correction flag, string arrays the text."""
    item = schema.get("properties", {}).get("memories", {}).get("items", {})
    if "$ref" in item:
        item = schema.get("$defs", {}).get(item["$ref"].rsplit("/", 1)[-1], {})
    properties: dict[str, Any] = item.get("properties", {})
    found = []
    for fact in extract_facts(transcript):
        memory: dict[str, Any] = {"message_ids": fact["message_ids"]}
        for name, spec in properties.items():
            if name == "message_ids":
                continue
            memory[name] = _fill(spec, fact)
        found.append(memory)
    return found


def _fill(spec: dict[str, Any], fact: dict[str, Any]) -> Any:
    options = spec.get("anyOf") or [spec]
    spec = next((o for o in options if o.get("type") != "null"), options[0])
    if "enum" in spec:
        return spec["enum"][0]
    kind = spec.get("type")
    if kind == "boolean":
        return bool(fact.get("correction"))
    if kind in ("number", "integer"):
        return 0
    if kind == "array":
        return [fact["text"]]
    return fact["text"]
