"""Hypothesis strategies for namespaces that nearly collide.

Two namespaces drawn independently almost never share a prefix or differ by one
separator, so a broken encoding passes. These strategies derive namespaces from one
another instead (see `variants`): one a prefix of the other, one label extending another
(`alice` vs `alicex`), two labels merged by a separator (`("a", "b")` vs `("a:b",)`) or
one label split at one, one character swapped for a separator. Labels are rich in the
separators other stores use (`: # / |`), LIKE/glob metacharacters (`% * _ ? [`) and IAM
pattern characters (`$ { }`), spaces, quotes, unicode (combining marks, zero-width space,
astral plane), lookalikes (Cyrillic a, fullwidth colon, one dot leader), decomposed forms
(`e` then a combining acute, next to the precomposed letter) and control characters.

Every namespace drawn here is valid for LangGraph: non-empty labels without `.` or NUL,
and a root label other than `langgraph`. `forbidden_labels` draws the invalid ones.

- `namespaces()`: one namespace;
- `near_collisions()`: a pair, the second derived from the first (or equal);
- `families()`: distinct namespaces all derived from one root, every merge and split by
  every separator included, so one example defeats any separator-joined encoding;
- `prefix_and_namespace()`: a prefix and a namespace that nearly starts with it.
"""

from __future__ import annotations

from hypothesis import strategies as st

Namespace = tuple[str, ...]

# Characters that act as separators or metacharacters somewhere. `.` is LangGraph's own
# separator and is forbidden in labels, like NUL.
SEPARATORS = list(":#/|%*_?[] \\'\"-${}")
UNICODE = ["é", "日", "\u0301", "\u200b", "\U0001f600", "ß", "Ω", "\u0131"]
# Characters that look like (or normalise to) others: Cyrillic a, fullwidth colon, one dot
# leader and fullwidth full stop (not `.`), `e` (before a combining acute it spells a
# decomposed e-acute), Kelvin sign and `K`.
LOOKALIKES = ["\u0430", "\uff1a", "\u2024", "\uff0e", "e", "\u212a", "K"]
CONTROLS = ["\t", "\n", "\r", "\x01", "\x1f", "\x7f", "\u202e"]
JOINERS = SEPARATORS + UNICODE[:4]
FORBIDDEN = [".", "\x00"]

# Most characters come from a tiny alphabet so that labels repeat and extend each other.
_char = st.one_of(
    st.sampled_from(list("ab")),
    st.sampled_from(SEPARATORS),
    st.sampled_from(UNICODE),
    st.sampled_from(LOOKALIKES + CONTROLS),
    st.characters(blacklist_characters=".\x00", blacklist_categories=("Cs",)),
)


def labels(max_size: int = 6) -> st.SearchStrategy[str]:
    """One valid label, often made of `a`, `b`, separators and unicode."""
    return st.text(alphabet=_char, min_size=1, max_size=max_size)


def namespaces(max_labels: int = 4, max_label_size: int = 6) -> st.SearchStrategy[Namespace]:
    """One valid namespace."""
    return (
        st.lists(labels(max_label_size), min_size=1, max_size=max_labels).map(tuple).filter(_valid)
    )


def _valid(ns: Namespace) -> bool:
    return bool(ns) and ns[0] != "langgraph" and all(ns)


def variants(ns: Namespace, extra: str = "x") -> list[Namespace]:
    """Namespaces one step from `ns` (valid, distinct, `ns` excluded): its proper prefixes
    and one-label extension; each label lengthened by `extra` or shortened by one
    character, split at every position (keeping or dropping a separator found there);
    each pair of neighbouring labels merged directly and by every joiner; each character
    replaced by a common separator."""
    found: list[Namespace] = [ns[:n] for n in range(1, len(ns))]
    found.append((*ns, extra))
    for i, label in enumerate(ns):
        head, tail = ns[:i], ns[i + 1 :]
        found.append((*head, label + extra, *tail))
        found.append((*head, label[:-1], *tail))
        for cut in range(1, len(label)):
            found.append((*head, label[:cut], label[cut:], *tail))
            if label[cut] in JOINERS:
                found.append((*head, label[:cut], label[cut + 1 :], *tail))
        for at in range(len(label)):
            found += [(*head, label[:at] + s + label[at + 1 :], *tail) for s in ":#/|"]
        if i + 1 < len(ns):
            rest = ns[i + 2 :]
            found += [(*head, label + s + ns[i + 1], *rest) for s in ["", *JOINERS]]
    return [other for other in dict.fromkeys(found) if other != ns and _valid(other)]


@st.composite
def near(draw: st.DrawFn, ns: Namespace) -> Namespace:
    """`ns` itself, one of its `variants`, or (rarely) an unrelated namespace."""
    close = variants(ns, draw(labels(3)))
    return draw(
        st.one_of(
            st.sampled_from(close) if close else st.just(ns),
            st.just(ns),
            namespaces(),
        )
    )


@st.composite
def near_collisions(draw: st.DrawFn, max_labels: int = 4) -> tuple[Namespace, Namespace]:
    """Two namespaces, one derived from the other by `near` (in either order)."""
    first = draw(namespaces(max_labels))
    second = draw(near(first))
    return (first, second) if draw(st.booleans()) else (second, first)


@st.composite
def families(draw: st.DrawFn, max_size: int | None = None) -> list[Namespace]:
    """Distinct namespaces derived from one root: the root, its `variants`, and the
    variants of one of those (tenants whose names nearly collide). With `max_size`, a
    random subset of at least two of them."""
    root = draw(namespaces(3, 4))
    first = variants(root, draw(labels(3)))
    found = [root, *first]
    if first:
        found += variants(draw(st.sampled_from(first)), draw(labels(3)))
    found = list(dict.fromkeys(found))
    if max_size is None or len(found) <= max_size:
        return found
    return draw(st.lists(st.sampled_from(found), min_size=2, max_size=max_size, unique=True))


@st.composite
def prefix_and_namespace(draw: st.DrawFn) -> tuple[Namespace, Namespace]:
    """A prefix (possibly empty) and a namespace that nearly has it as a prefix."""
    first, second = draw(near_collisions())
    return first[: draw(st.integers(0, len(first)))], second


def forbidden_labels() -> st.SearchStrategy[str]:
    """A label LangGraph rejects: empty, or holding `.` or NUL among valid characters."""
    return st.just("") | st.builds(
        lambda head, bad, tail: head + bad + tail,
        st.text(alphabet=_char, max_size=3),
        st.sampled_from(FORBIDDEN),
        st.text(alphabet=_char, max_size=3),
    )
