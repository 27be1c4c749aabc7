"""The deploy docs (README's "Deploy to AWS" and docs/deploy.md) name what the template
deploys: its functions, queues and alarms, counted as the template counts them, every
alarm by name, every output, and every context setting (`MemorySettings`' fields)."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from infra.settings import MemorySettings, _camel

from .conftest import Synthesized

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "deploy.md").read_text()
README = (ROOT / "README.md").read_text()
DEPLOY = README[README.index("## Deploy to AWS") :]
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def test_the_docs_count_what_the_template_deploys(synthesized: Synthesized) -> None:
    counted = {
        "Lambda functions": len(synthesized.resources("AWS::Lambda::Function")),
        "SQS queues": len(synthesized.resources("AWS::SQS::Queue")),
        "alarms": len(synthesized.resources("AWS::CloudWatch::Alarm")),
    }
    for what, count in counted.items():
        said = r"\s+".join((WORDS[count], *what.split()))  # across a line break too
        assert re.search(rf"\b{said}\b", GUIDE), f"docs/deploy.md: {WORDS[count]} {what}"
        assert re.search(rf"\b{said}\b", DEPLOY), f"README: {WORDS[count]} {what}"


def test_the_docs_name_every_alarm_and_output(synthesized: Synthesized) -> None:
    alarms = synthesized.resources("AWS::CloudWatch::Alarm").values()
    suffixes = {str(alarm["Properties"]["AlarmName"]).rsplit("-", 1)[-1] for alarm in alarms}
    assert suffixes and all(f"-{name}`" in GUIDE for name in suffixes), suffixes
    outputs = synthesized.template.to_json()["Outputs"]
    assert all(f"`{name}`" in GUIDE and f"`{name}`" in DEPLOY for name in outputs)


def test_the_guide_lists_every_context_setting() -> None:
    for setting in fields(MemorySettings):
        assert f"| `{_camel(setting.name)}` |" in GUIDE, setting.name
