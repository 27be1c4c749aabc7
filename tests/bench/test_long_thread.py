"""The long-thread benchmark runs end to end at a tiny size: every saver on both graphs,
the split of a turn's write units by saver call, and their markdown.

No timing is asserted: the request counts and units come from the emulation through
boto3 (`bench.instrument.Meter`)."""

from __future__ import annotations

from bench.long_thread import (
    ADD,
    DELTA,
    IN_MEMORY,
    markdown,
    run,
    units_by_call,
    units_markdown,
)
from bench.stores import CHECKPOINT_AWS, OURS


def test_the_bench_runs_every_saver_on_both_graphs() -> None:
    threads = run(turns=10, peer_turns=3, snapshot_frequency=4)
    ran = {(t.saver, t.channel): len(t.turns) for t in threads}
    assert ran == {
        (OURS, ADD): 10,
        (OURS, DELTA): 10,
        (CHECKPOINT_AWS, ADD): 3,
        (CHECKPOINT_AWS, DELTA): 3,
        (IN_MEMORY, ADD): 10,
        (IN_MEMORY, DELTA): 10,
    }
    ours = {t.channel: t.at(10) for t in threads if t.saver == OURS}
    assert all(s is not None and 0 < s.usage.requests <= 9 for s in ours.values()), ours
    report = markdown(threads, 4)
    assert f"| {OURS} | {DELTA} | 10 |" in report and "dollars" in report


def test_a_turns_write_units_are_split_by_call() -> None:
    splits = units_by_call((2,))
    assert [(s.saver, s.turn) for s in splits] == [(OURS, 2), (CHECKPOINT_AWS, 2)]
    for split in splits:
        assert len(split.puts) == 3 and len(split.writes) == 2, split
        assert all(units >= 1 for units in split.puts + split.writes), split
    assert f"| {OURS} | 2 |" in units_markdown(splits)
