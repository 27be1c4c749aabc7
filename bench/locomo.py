"""LoCoMo's published QA data (Maharana et al., "Evaluating Very Long-Term Conversational
Memory of LLM Agents", ACL 2024: `data/locomo10.json` in snap-research/locomo) as the
evaluation's conversations. The data is not shipped here; `python -m bench.memory_eval
--dataset locomo FILE --model module:factory` reads a copy the user has.

The file is a list of samples, each:

    {"sample_id": "conv-26",
     "conversation": {"speaker_a": "Caroline", "speaker_b": "Melanie",
                      "session_1_date_time": "1:56 pm on 8 May, 2023",
                      "session_1": [{"speaker": "Caroline", "dia_id": "D1:1",
                                     "text": "...", "blip_caption": "..."}, ...], ...},
     "qa": [{"question": "...", "answer": "...", "evidence": ["D1:3"], "category": 2},
            {"question": "...", "adversarial_answer": "...", "evidence": [...],
             "category": 5}, ...]}

Each sample is two people talking, and questions ask about either of them, so each
speaker's memories form apart (as memory services evaluated on LoCoMo do): in speaker A's
threads A's turns are the human's and B's the assistant's, and the other way round, and a
question recalls from both. A turn that shared a photo carries its caption
(`[shares a photo of ...]`), as LoCoMo's own retrieval baselines read it. A session's date
opens its threads as a system message, and prefixes its turns in the raw-turn baseline.

Questions ask about anything said, not what holds now ("What did Caroline research?"),
so recall searches superseded memories too (`history=True`). A question's evidence is its
dialogue ids (`D1:3`, the message ids here); entries that name no turn of the sample (the
published file has a few malformed ones) are dropped, and a question left with no
evidence is not scored. Categories are reported by number, named
as the papers that report on LoCoMo name them (the file holds only the numbers).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bench.memory_eval_set import Conversation, Question, Turn

CATEGORIES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
DIA_ID = re.compile(r"D\d+:\d+")
SESSION = re.compile(r"^session_(\d+)$")


def kind(category: int) -> str:
    """The report's name of a QA category."""
    return f"{category}: {CATEGORIES.get(category, 'other')}"


def _text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo of {caption}]" if caption else text


def sample(data: dict[str, Any]) -> Conversation:
    """One LoCoMo sample as a conversation between its two speakers."""
    user = str(data["sample_id"])
    talk = data["conversation"]
    numbers = sorted(int(m[1]) for key in talk if (m := SESSION.match(key)) and talk[key])
    sessions, dates = [], []
    for n in numbers:
        turns = tuple(
            Turn(str(t["dia_id"]), _text(t), str(t["speaker"])) for t in talk[f"session_{n}"]
        )
        sessions.append(turns)
        dates.append(str(talk.get(f"session_{n}_date_time", "")))
    said = {t.message_id for s in sessions for t in s}
    questions = []
    for qa in data.get("qa", []):
        evidence = tuple(
            dict.fromkeys(e for entry in qa.get("evidence", []) for e in DIA_ID.findall(entry))
        )
        evidence = tuple(e for e in evidence if e in said)
        if not evidence:
            continue
        answer = qa.get("answer", qa.get("adversarial_answer", ""))
        category = int(qa.get("category", 0))
        questions.append(
            Question(user, str(qa["question"]), str(answer), evidence, kind(category), history=True)
        )
    speakers = (str(talk["speaker_a"]), str(talk["speaker_b"]))
    return Conversation(user, tuple(sessions), tuple(questions), speakers, tuple(dates))


def load(path: Path) -> list[Conversation]:
    """Every sample of a LoCoMo JSON file."""
    return [sample(data) for data in json.loads(path.read_text())]
