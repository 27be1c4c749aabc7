"""The table's vocabulary is spelled in one place, `table/schema.py`: no other module of
the library writes a key prefix or an attribute name as a string literal, so renaming
one is one edit and every row kind's keys can be checked against each other there.

Every string constant of `schema` is a word of the vocabulary. A literal anywhere in the
library (docstrings aside; `testing/`, the AWS emulation, keeps its own names) fails the
test when it equals a word, when it starts with a prefix (a word that starts with `.` or
ends in a separator, e.g. `k#`, `._meta`, `filter_`, `w:`), or when it is a DynamoDB
expression naming an attribute (`"PK = :pk"`: write `f"{PK} = :pk"`). A literal that
equals a word by coincidence (a CLI output field, a LangGraph config key) is listed in
`COINCIDENCES` with the reason, which excuses that literal in that module only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from langgraph.store.dynamodb.table import schema

# The source root: a module is named by its path under it (`store/` + the path).
STORE = Path(__file__).resolve().parents[2] / "store"
LIBRARY = "langgraph/store/dynamodb/"
SAVER = "langgraph/checkpoint/dynamodb/"
SKIPPED = (STORE / LIBRARY / "table" / "schema.py", STORE / LIBRARY / "testing")

# Literals that equal a word of the vocabulary but name no key or attribute of the table:
# why, then the literals by module (its path under store/).
COINCIDENCES: dict[str, dict[str, set[str]]] = {
    "fields of the CLI's output (--json, tables) and of its export lines, formats of their own": {
        LIBRARY + "cli/app.py": {"deleted", "dims", "model", "namespace", "tenant", "value"},
        LIBRARY + "cli/purge.py": {"deleted", "prefix"},
        LIBRARY + "cli/status.py": {"dims", "model"},
        LIBRARY + "cli/target.py": {"created_at", "namespace", "updated_at", "value"},
        LIBRARY + "cli/thread_transfer.py": {"tenant", "thread_id"},
        LIBRARY + "cli/threads.py": {"deleted", "namespace", "parent", "tenant", "thread_id"},
        LIBRARY + "cli/transfer.py": {
            "created_at",
            "expires_at",
            "namespace",
            "thread_id",
            "ttl_minutes",
            "updated_at",
            "value",
        },
        LIBRARY + "demo/__main__.py": {"namespace"},
        LIBRARY + "table/usage.py": {"tenant"},
    },
    "names of settings and arguments (the index configuration, the config file, options)": {
        SAVER + "scope.py": {"tenant"},
        LIBRARY + "cli/target.py": {"dims", "fields"},
        LIBRARY + "demo/__main__.py": {"dims", "fields"},
        LIBRARY + "embedders/bedrock_models.py": {"dims"},
        LIBRARY + "embedders/build.py": {"dims"},
        LIBRARY + "extraction/worker/queue_worker.py": {"dims", "fields"},
        LIBRARY + "items/index_config.py": {"dims", "fields", "filter_fields"},
        LIBRARY + "basestore/config.py": {"dims", "fields"},
    },
    "LangGraph's names: keys of a thread's `configurable`, a MatchCondition's match type": {
        SAVER + "loading.py": {"thread_id"},
        SAVER + "scope.py": {"thread_id"},
        LIBRARY + "cli/target.py": {"tenant"},
        LIBRARY + "demo/agent.py": {"thread_id", "tenant"},
        LIBRARY + "extraction/engine/reader.py": {"thread_id"},
        LIBRARY + "items/namespaces.py": {"prefix"},
    },
    "a prefix rule of Lambda's event filtering": {
        LIBRARY + "stream/consumer.py": {"prefix"},
        LIBRARY + "stream/router.py": {"prefix"},
        LIBRARY + "stream/event_filter.py": {"prefix"},
    },
    "Python attributes of an embedder, a regular expression's group, an IAM resource kind": {
        LIBRARY + "embedders/bedrock_models.py": {"model"},
        LIBRARY + "items/model_pin.py": {"model", "normalize"},
        LIBRARY + "table/permissions.py": {"model"},
    },
    "an extraction's names: a memory's provenance fields, a namespace template's "
    "placeholders, a strategy's settings, a chat model's attributes, a recorded step's "
    "fields": {
        LIBRARY + "extraction/consolidation/apply.py": {"thread_id"},
        LIBRARY + "extraction/consolidation/journal.py": {"namespace", "thread_id", "value"},
        LIBRARY + "extraction/strategies/candidates.py": {"model", "tenant", "thread_id"},
        LIBRARY + "extraction/strategies/strategy.py": {
            "model",
            "namespace",
            "tenant",
            "thread_id",
        },
        LIBRARY + "recall/fields.py": {"thread_id"},
    },
    "the inspector's page data (a job's counts, a chart's bars) and the fields of the "
    "provenance and usage records it shows": {
        LIBRARY + "cli/ui/app.py": {"deleted"},
        LIBRARY + "cli/ui/inspector.py": {"tenant", "thread_id", "value"},
    },
    "pydantic's validator mode": {
        LIBRARY + "extraction/strategies/custom.py": {"after"},
    },
    "the lexical embedder's stopword and word feature prefix": {
        LIBRARY + "embedders/lexical.py": {"i", "w:"},
    },
}
EXCUSED = {
    (module, literal)
    for modules in COINCIDENCES.values()
    for module, found in modules.items()
    for literal in found
}

WORDS: dict[str, list[str]] = {}
for _name, _value in vars(schema).items():
    if _name.isupper() and isinstance(_value, str):
        WORDS.setdefault(_value, []).append(_name)
PREFIXES = [word for word in WORDS if word.startswith(".") or not word[-1].isalnum()]
IDENTIFIERS = {word for word in WORDS if word.isidentifier()}

# A DynamoDB expression: it holds a placeholder (`:v`, `#n`) or a function or clause of
# the expression grammar, or it is a projection (names separated by commas).
EXPRESSION = re.compile(
    r"(^|[\s(,])[:#][A-Za-z_]"
    r"|\b(attribute_exists|attribute_not_exists|begins_with|if_not_exists)\("
    r"|^(SET|REMOVE) "
    r"|^\s*#?\w+(\s*,\s*#?\w+)+\s*$"
)
# A name in an expression (not a placeholder, not part of one).
NAME = re.compile(r"(?<![\w:#])[A-Za-z_]\w*")


def modules() -> Iterator[Path]:
    for path in sorted(STORE.rglob("*.py")):
        if not any(path == skipped or skipped in path.parents for skipped in SKIPPED):
            yield path


def literals(tree: ast.AST) -> Iterator[ast.Constant]:
    """Every string constant of a module but its docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(tree):
        is_string = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_string and id(node) not in docstrings:
            yield node


def spelled(literal: str) -> list[str]:
    """The words of the vocabulary `literal` spells (by their names in `schema`)."""
    found = [word for word in PREFIXES if literal.startswith(word)]
    if literal in WORDS:
        found.append(literal)
    if EXPRESSION.search(literal):
        found += [name for name in NAME.findall(literal) if name in IDENTIFIERS]
    return sorted({name for word in found for name in WORDS[word]})


def violations() -> Iterator[tuple[str, int, str, list[str]]]:
    for path in modules():
        module = path.relative_to(STORE).as_posix()
        for node in literals(ast.parse(path.read_text(), str(path))):
            names = spelled(node.value)
            if names:
                yield module, node.lineno, node.value, names


def test_only_schema_spells_keys_and_attributes() -> None:
    found = [v for v in violations() if (v[0], v[2]) not in EXCUSED]
    assert not found, "spell these with table/schema.py's constants:\n" + "\n".join(
        f"store/{module}:{line}: {literal!r} is schema.{' / '.join(names)}"
        for module, line, literal, names in found
    )


def test_every_coincidence_still_occurs() -> None:
    seen = {(module, literal) for module, _, literal, _ in violations()}
    assert not EXCUSED - seen


def test_the_check_sees_what_it_must() -> None:
    assert spelled("k#") == ["ITEM_PREFIX"]
    assert spelled("._meta") == ["META_PK"]
    assert spelled("purge#acme.") == ["PURGE_PREFIX"]
    assert spelled("embed_pending") == ["PENDING"]
    assert spelled("PK = :pk AND begins_with(SK, :start)") == ["PK", "SK"]
    assert spelled("SET registered_at = :now") == ["REGISTERED_AT"]
    assert spelled("PK, SK") == ["PK", "SK"]
    assert spelled("#pk = :pk") == []
    assert spelled("Table has key schema PK (HASH, S).") == []
