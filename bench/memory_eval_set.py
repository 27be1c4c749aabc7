"""The project's own evaluation set for extraction and consolidation: 32 users, each a
conversation of four sessions (threads) with planted facts, a preference that changes, a
direct contradiction, a fact stated once in passing amid other talk, a fact repeated in a
later session, and distractors (greetings, questions, opinions, small talk). Every message
has an id; every question names the message that supports its answer (and, for a changed
fact, the stale answer that must lose).

The values rotate through fixed lists, so the set is the same on every run."""

from __future__ import annotations

from dataclasses import dataclass

USERS = 32
CITIES = ["Oslo", "Lyon", "Porto", "Graz", "Turku", "Ghent", "Cork", "Bern", "Split"]
MOVES = ["Bergen", "Nantes", "Braga", "Linz", "Tampere", "Leuven", "Galway", "Basel", "Zadar"]
JOBS = ["nursing", "carpentry", "accounting", "teaching", "welding", "law", "pharmacy"]
DRINKS = ["green tea", "espresso", "cocoa", "mint tea", "oat lattes", "black coffee"]
NEW_DRINKS = ["sparkling water", "chai", "rooibos", "lemonade", "matcha", "kombucha"]
SISTERS = ["Ana", "Beth", "Chloe", "Dana", "Eva", "Fay", "Gina", "Hana", "Ines", "Jo"]
DOGS = ["Rex", "Milo", "Bruno", "Luna", "Nala", "Otis", "Pip", "Rocky", "Scout", "Toby"]
DISTRACTORS = [
    "Hi there, how are you today?",
    "Can you recommend a good book for the weekend?",
    "I think it might rain tomorrow, not sure.",
    "What time is it in Tokyo right now?",
    "Thanks, that was helpful!",
    "Could you explain how compound interest works?",
    "The match last night was quite something.",
    "Remind me what we were talking about?",
]


@dataclass(frozen=True)
class Turn:
    """One human message of a session: its id and text."""

    message_id: str
    text: str


@dataclass(frozen=True)
class Question:
    """A question whose answer needs a memory: the expected answer (a substring of the
    memory's text), the supporting message, the kind, and for a changed fact the stale
    answer that must not win."""

    user: str
    text: str
    answer: str
    evidence: str
    kind: str
    stale: str | None = None


@dataclass(frozen=True)
class Conversation:
    """One user's sessions (each a thread, oldest first) and questions."""

    user: str
    sessions: tuple[tuple[Turn, ...], ...]
    questions: tuple[Question, ...]


def _pick(values: list[str], n: int, step: int = 1) -> str:
    return values[(n * step) % len(values)]


def conversation(n: int) -> Conversation:
    """The n-th user's conversation."""
    user = f"user{n:02d}"
    city, moved = _pick(CITIES, n), _pick(MOVES, n, 2)
    job, drink, new_drink = _pick(JOBS, n), _pick(DRINKS, n), _pick(NEW_DRINKS, n, 5)
    sister, dog = _pick(SISTERS, n, 3), _pick(DOGS, n, 7)

    def turns(session: int, *texts: str) -> tuple[Turn, ...]:
        return tuple(Turn(f"{user}-s{session}-m{i}", t) for i, t in enumerate(texts))

    def distractor(k: int) -> str:
        return _pick(DISTRACTORS, n + k)

    s1 = turns(
        1,
        distractor(0),
        f"My city is {city}.",
        f"My job is {job}.",
        distractor(1),
        f"I prefer {drink}.",
    )
    s2 = turns(
        2,
        distractor(2),
        f"Long day at work today. My sister is {sister}. Anyway, back to the trip planning.",
        f"My dog is {dog}.",
        distractor(3),
    )
    s3 = turns(
        3,
        distractor(4),
        f"Actually, my city is {moved} now.",
        f"Actually, now I prefer {new_drink}.",
        distractor(5),
    )
    s4 = turns(4, distractor(6), f"My dog is {dog}.", distractor(7))
    questions = (
        Question(
            user, "Which city is the user's city?", moved, s3[1].message_id, "contradiction", city
        ),
        Question(user, "What is the user's job?", job, s1[2].message_id, "fact"),
        Question(
            user,
            "What does the user prefer to drink?",
            new_drink,
            s3[2].message_id,
            "preference change",
            drink,
        ),
        Question(
            user, "Who is the user's sister?", sister, s2[1].message_id, "stated once in passing"
        ),
        Question(user, "What is the user's dog called?", dog, s2[2].message_id, "fact"),
    )
    return Conversation(user, (s1, s2, s3, s4), questions)


def evaluation_set() -> list[Conversation]:
    """Every conversation of the set."""
    return [conversation(n) for n in range(USERS)]
