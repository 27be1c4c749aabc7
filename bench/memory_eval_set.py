"""The project's own evaluation set for extraction and consolidation, generated from a seed
(the same set on every run): 30 users, each 10 sessions (threads) of 22 turns, 220 human
turns a user, 6,600 in all.

What makes it hard, and for whom:

- **Facts stated once, long before the question.** The job, the dog, the hometown and the
  car are said in the first two sessions and asked about after the tenth, some 200 turns
  later; the sister and the best friend are named in passing, in the middle of a longer
  message about something else.
- **Distractors that share the facts' vocabulary.** About a third of the turns talk about
  the same subjects without stating the user's fact: other people's dogs, jobs, homes and
  drinks (`My neighbour's dog is Max.`, which a model may well keep, as a fact about the
  neighbour), and plain talk (`The dog kept barking at the mailman this morning.`). The
  rest is everyday chat, repeated as people repeat themselves.
- **Preferences that change more than once.** Where the user's home is, what they prefer
  to drink, their favourite cuisine: each said three times, in sessions far apart, the
  last two as corrections (`Actually, now I prefer to drink chai.`).
- **"Before" questions.** What the user preferred before the newest value (the middle
  one, for a chain of three): a memory store must keep superseded facts as history.
- **Two memories combined.** "What job does Ana have?" needs `My sister is Ana.` (in
  passing, early) and `My sister's job is pharmacy.` (sessions later); both messages are
  the evidence.

The facts are worded as the emulated extractor (`langgraph.store.dynamodb.testing.
extractor`) reads them (`My X is Y.`, `I prefer to drink X.`, `Actually, ...`), so that
offline the extracted side has something to find; a real model reads them the same way.
Every message has an id; every question names the messages that support its answer and,
for a changed fact, the stale answers that must not win. Questions say "the dog of the
user", not "the user's dog": the lexical embedder both sides search with splits "user's"
into "user" and "s", and "s" would match every possessive distractor (`My boss's dog is
...`) and every "let's": a loss for the raw turns that is the embedder's quirk, not the
set's difficulty.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

USERS = 30
SESSIONS = 10
TURNS = 22  # human turns per session
SEED = 43

NAMES = [
    "Ana", "Beth", "Chloe", "Dana", "Eva", "Fay", "Gina", "Hana", "Ines", "Jo", "Kira",
    "Lena", "Mia", "Nora", "Olga", "Petra", "Rosa", "Sara", "Tess", "Vera", "Wren", "Yara",
]  # fmt: skip
FRIENDS = [
    "Omar", "Pablo", "Quinn", "Ravi", "Sven", "Tomas", "Uwe", "Viktor", "Yusuf", "Zane",
    "Arlo", "Bram", "Cyril", "Dario", "Emil", "Felix", "Goran", "Hugo", "Ivo", "Jonas",
]  # fmt: skip
DOGS = [
    "Rex", "Milo", "Bruno", "Luna", "Nala", "Otis", "Pip", "Rocky", "Scout", "Toby",
    "Biscuit", "Ziggy", "Maple", "Pepper", "Juno", "Waffles", "Clover", "Ringo",
]  # fmt: skip
JOBS = [
    "nursing", "carpentry", "accounting", "teaching", "welding", "law", "pharmacy",
    "plumbing", "dentistry", "journalism", "architecture", "farming", "baking", "piloting",
]  # fmt: skip
CITIES = [
    "Oslo", "Lyon", "Porto", "Graz", "Turku", "Ghent", "Cork", "Bern", "Split", "Bergen",
    "Nantes", "Braga", "Linz", "Tampere", "Leuven", "Galway", "Basel", "Zadar", "Aarhus",
    "Malmo", "Utrecht", "Krakow", "Brno", "Riga", "Tartu", "Seville", "Bilbao", "Trieste",
]  # fmt: skip
DRINKS = [
    "green tea", "espresso", "cocoa", "mint tea", "oat lattes", "black coffee",
    "sparkling water", "chai", "rooibos", "lemonade", "matcha", "kombucha", "ginger beer",
    "hot chocolate", "iced coffee", "chamomile tea",
]  # fmt: skip
CUISINES = [
    "Thai", "Mexican", "Ethiopian", "Japanese", "Lebanese", "Georgian", "Peruvian",
    "Korean", "Vietnamese", "Greek", "Indian", "Turkish", "Moroccan", "Sichuan",
]  # fmt: skip
CARS = ["Volvo", "Skoda", "Toyota", "Fiat", "Renault", "Kia", "Subaru", "Mazda", "Saab"]
PEOPLE = ["neighbour", "colleague", "cousin", "brother", "landlord", "boss", "uncle"]

# Talk about the facts' subjects that states none of the user's facts. `{other_*}` are
# filled with a value that is not the user's; a few name another person's fact.
TOPICAL = [
    "My {person}'s dog is {other_dog}.",
    "We walked past the dog park {when} and it was packed with puppies.",
    "The dog next door kept barking at the mailman {when}.",
    "Do dogs need a raincoat in winter, or is that silly?",
    "There was a dog show on TV tonight, a poodle named {other_dog} won.",
    "My {person}'s job is {other_job}.",
    "Work was hectic {when}, the job never seems to end.",
    "Is {other_job} a good job for someone who likes people?",
    "My cousin is thinking about a career in {other_job}.",
    "My {person}'s home is in {other_city}.",
    "We might spend a weekend in {other_city} next month.",
    "Home prices in {other_city} are getting out of hand.",
    "The city is repaving the road near our home again, {when} it was loud.",
    "My {person} prefers to drink {other_drink} at every meeting.",
    "The cafe on the corner ran out of {other_drink} today.",
    "Is it better to drink {other_drink} in the morning or in the evening?",
    "I tried {other_drink} at the market, it was not bad.",
    "My {person}'s favourite cuisine is {other_cuisine}.",
    "We ordered {other_cuisine} food for the office party.",
    "Is {other_cuisine} cuisine hard to cook at home?",
    "Had dinner with my sister and her kids {when}, they are growing fast.",
    "My {person}'s sister is {other_name}.",
    "My friend from school is visiting {other_city} soon.",
    "My car needs new tyres, the garage said so {when}.",
    "My {person}'s car is a {other_car}.",
    "Sometimes I miss the hometown where I grew up, especially {when}.",
]
WHEN = ["this morning", "last night", "on Sunday", "yesterday", "after lunch", "today"]
CHAT = [  # everyday chat; `{...}` filled from the lists below
    "Hi there, how are you today?",
    "Good morning!",
    "Thanks, that was helpful!",
    "That makes sense, thank you.",
    "Ok, we can continue later.",
    "Interesting, tell me more.",
    "Remind me what we were talking about?",
    "Can you recommend a good book about {subject}?",
    "Could you explain how {concept} works?",
    "What is a quick recipe with {ingredient} for dinner tonight?",
    "Any tips for {activity}?",
    "What is the weather usually like in {month}?",
    "Is it worth learning {skill} as an adult?",
    "Can you summarise the news about {subject}?",
    "What does the word {word} mean?",
    "Tell me a joke about {subject}.",
    "Write a haiku about {season}.",
    "What should I pack for a trip in {month}?",
    "How do I get a {stain} stain out of a shirt?",
    "Help me write a short email to the landlord about the {fault}.",
    "How long should {ingredient} cook in the oven?",
    "I think it might rain tomorrow, not sure.",
    "The match last night was quite something.",
    "What time is it in {capital} right now?",
    "Give me three ideas for {activity} this weekend.",
]
SLOTS = {
    "subject": ["history", "astronomy", "programmers", "gardening", "the elections",
                "economics", "jazz", "chess", "the ocean", "volcanoes", "bees", "robots"],
    "concept": ["compound interest", "a heat pump", "vaccination", "a mortgage",
                "solar power", "photosynthesis", "inflation", "a credit score", "GPS"],
    "ingredient": ["lentils", "salmon", "potatoes", "tofu", "mushrooms", "chickpeas",
                   "pumpkin", "rice", "spinach", "eggs"],
    "activity": ["sleeping better", "running in the cold", "saving money", "a stiff neck",
                 "learning faster", "keeping basil alive", "a long drive", "public speaking"],
    "month": ["January", "March", "May", "July", "September", "November"],
    "skill": ["the piano", "to swim", "Italian", "to draw", "chess", "to code"],
    "word": ["serendipity", "ephemeral", "laconic", "quixotic", "ubiquitous", "petrichor"],
    "season": ["autumn leaves", "the first snow", "spring rain", "a summer night"],
    "stain": ["red wine", "coffee", "grass", "ink", "tomato sauce"],
    "fault": ["heating", "leaking tap", "broken window", "noisy boiler"],
    "capital": ["Tokyo", "Lima", "Nairobi", "Ottawa", "Hanoi", "Canberra"],
}  # fmt: skip
PASSING = [  # a fact named in the middle of a longer message about something else
    "Long week at work, the project deadline moved again. My {what} is {value}. "
    "Anyway, can you help me plan the weekend?",
    "The train was late this morning and I missed the meeting. My {what} is {value}. "
    "Remind me to call the bank tomorrow.",
    "I finally cleaned the garage, it took all afternoon. My {what} is {value}. "
    "What should I do with the old paint cans?",
]


@dataclass(frozen=True)
class Turn:
    """One message of a session: its id and text, and who said it (`speaker`: "" for the
    user of a one-user conversation; a name in a conversation between two people)."""

    message_id: str
    text: str
    speaker: str = ""


@dataclass(frozen=True)
class Question:
    """A question whose answer needs memories: the expected answer (a substring of a
    memory's text), the supporting messages (`evidence`: all of them are needed), the
    kind, the stale answers that must not win over it (a changed fact), and whether it
    asks about the past (`history`: superseded memories are searched too)."""

    user: str
    text: str
    answer: str
    evidence: tuple[str, ...]
    kind: str
    stale: tuple[str, ...] = ()
    history: bool = False


@dataclass(frozen=True)
class Conversation:
    """One user's sessions (each a thread, oldest first) and questions. `speakers`: the
    people whose memories form (each gets a namespace, and sees the other's turns as the
    other side of the conversation); empty for one user talking to the assistant.
    `dates`: when each session took place, when known."""

    user: str
    sessions: tuple[tuple[Turn, ...], ...]
    questions: tuple[Question, ...]
    speakers: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()


# Kinds of question, in the order the report lists them.
ONCE = "stated once, long before"
PASSED = "stated in passing"
CURRENT = "changed twice: current value"
BEFORE = "what was it before ...?"
COMBINED = "two memories combined"
KINDS = (ONCE, PASSED, CURRENT, BEFORE, COMBINED)


def _others(rng: random.Random, values: list[str], mine: set[str], n: int) -> list[str]:
    return rng.sample([v for v in values if v not in mine], n)


def conversation(n: int, *, sessions: int = SESSIONS, turns: int = TURNS) -> Conversation:
    """The n-th user's conversation (its own seeded draw: user n is the same whatever the
    size of the set). At least 8 sessions of at least 4 turns: the planted facts take up
    to 3 turns of a session."""
    if sessions < 8 or turns < 4:
        raise ValueError("a conversation needs at least 8 sessions of 4 turns")
    rng = random.Random(SEED * 10_000 + n)
    user = f"user{n:02d}"
    sister, friend = rng.choice(NAMES), rng.choice(FRIENDS)
    dog, job, sister_job = rng.choice(DOGS), *rng.sample(JOBS, 2)
    hometown, *homes = rng.sample(CITIES, 4)
    friend_city = rng.choice([c for c in CITIES if c not in homes])
    drinks, cuisines, car = rng.sample(DRINKS, 3), rng.sample(CUISINES, 3), rng.choice(CARS)
    passing = rng.sample(PASSING, 2)

    # (session, text) of every planted fact, by name; each lands at a random turn of its
    # session. Sessions are 0-based; the last two plant nothing.
    plants: dict[str, tuple[int, str]] = {
        "job": (0, f"My job is {job}."),
        "dog": (0, f"My dog is {dog}."),
        "home1": (0, f"My home is in {homes[0]}."),
        "drink1": (0, f"I prefer to drink {drinks[0]}."),
        "hometown": (1, f"My hometown is {hometown}."),
        "car": (1, f"My car is a {car}."),
        "cuisine1": (1, f"My favourite cuisine is {cuisines[0]}."),
        "sister": (1, passing[0].format(what="sister", value=sister)),
        "friend": (2, passing[1].format(what="best friend", value=friend)),
        "home2": (3, f"Actually, my home is in {homes[1]} now."),
        "drink2": (3, f"Actually, now I prefer to drink {drinks[1]}."),
        "sister_job": (4, f"My sister's job is {sister_job}."),
        "cuisine2": (5, f"Actually, my favourite cuisine is {cuisines[1]} now."),
        "home3": (6, f"Actually, my home is in {homes[2]} now."),
        "drink3": (6, f"Actually, now I prefer to drink {drinks[2]}."),
        "friend_city": (6, f"My best friend's home is in {friend_city}."),
        "cuisine3": (7, f"Actually, my favourite cuisine is {cuisines[2]} now."),
    }
    mine = {sister, friend, dog, job, sister_job, hometown, car, friend_city}
    mine |= set(homes) | set(drinks) | set(cuisines)

    def topical() -> str:
        return rng.choice(TOPICAL).format(
            person=rng.choice(PEOPLE),
            other_dog=_others(rng, DOGS, mine, 1)[0],
            other_job=_others(rng, JOBS, mine, 1)[0],
            other_city=_others(rng, CITIES, mine, 1)[0],
            other_drink=_others(rng, DRINKS, mine, 1)[0],
            other_cuisine=_others(rng, CUISINES, mine, 1)[0],
            other_name=_others(rng, NAMES, mine, 1)[0],
            other_car=_others(rng, CARS, mine, 1)[0],
            when=rng.choice(WHEN),
        )

    def chat() -> str:
        return rng.choice(CHAT).format(**{k: rng.choice(v) for k, v in SLOTS.items()})

    where: dict[str, str] = {}  # fact name -> message id
    all_sessions = []
    for s in range(sessions):
        planted = [(name, text) for name, (at, text) in plants.items() if at == s]
        slots = rng.sample(range(turns), len(planted))
        texts = [topical() if rng.random() < 0.35 else chat() for _ in range(turns)]
        for slot, (name, text) in zip(slots, planted, strict=True):
            texts[slot] = text
            where[name] = f"{user}-s{s + 1}-m{slot}"
        all_sessions.append(
            tuple(Turn(f"{user}-s{s + 1}-m{i}", text) for i, text in enumerate(texts))
        )

    def q(text: str, answer: str, kind: str, *facts: str, **more: object) -> Question:
        evidence = tuple(where[f] for f in facts)
        return Question(user, text, answer, evidence, kind, **more)  # type: ignore[arg-type]

    questions = (
        q("What job does the user have?", job, ONCE, "job"),
        q("What is the name of the dog the user has?", dog, ONCE, "dog"),
        q("Which town is the hometown of the user?", hometown, ONCE, "hometown"),
        q("What car does the user have?", car, ONCE, "car"),
        q("Who is the sister of the user?", sister, PASSED, "sister"),
        q("Who is the best friend of the user?", friend, PASSED, "friend"),
        q("Where is the home of the user now?", homes[2], CURRENT, "home3", stale=tuple(homes[:2])),
        q(
            "What does the user prefer to drink now?",
            drinks[2],
            CURRENT,
            "drink3",
            stale=tuple(drinks[:2]),
        ),
        q(
            "What is the favourite cuisine of the user now?",
            cuisines[2],
            CURRENT,
            "cuisine3",
            stale=tuple(cuisines[:2]),
        ),
        q(
            f"Where was the home of the user before it was in {homes[2]}?",
            homes[1],
            BEFORE,
            "home2",
            history=True,
        ),
        q(
            f"What did the user prefer to drink before {drinks[1]}?",
            drinks[0],
            BEFORE,
            "drink1",
            history=True,
        ),
        q(
            f"What was the favourite cuisine of the user before {cuisines[2]}?",
            cuisines[1],
            BEFORE,
            "cuisine2",
            history=True,
        ),
        q(f"What job does {sister} have?", sister_job, COMBINED, "sister", "sister_job"),
        q(f"Where is the home of {friend}?", friend_city, COMBINED, "friend", "friend_city"),
    )
    return Conversation(user, tuple(all_sessions), questions)


def evaluation_set(
    users: int = USERS, *, sessions: int = SESSIONS, turns: int = TURNS
) -> list[Conversation]:
    """The first `users` conversations of the set (smaller sizes for a quick run)."""
    return [conversation(n, sessions=sessions, turns=turns) for n in range(users)]
