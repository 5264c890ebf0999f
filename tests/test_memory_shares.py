"""The per-turn budget split: "Related Context:" (observations) and "Relevant Memory:" each get a
share of prompt.memory; unused room flows to the other (unit test with a word counter)."""

from __future__ import annotations

from nanobot.memory.retriever import fit
from nanobot.memory.shares import is_observation, split_fit


def words(text: str) -> int:
    return len(text.split())


MEM = [f"- fact{i} a b c" for i in range(10)]  # 5 words per line
OBS = [f"- note{i} a b c" for i in range(10)]


def blocks(text: str) -> dict[str, int]:
    out = {}
    for block in text.split("\n\n"):
        head, *lines = block.splitlines()
        out[head] = len(lines)
    return out


def test_each_gets_its_share():
    # 35 words, half each: a block is its 2-word header + 5 words per line -> 3 lines each
    text = split_fit(MEM, OBS, 35, 0.5, words, fit)
    assert blocks(text) == {"Relevant Memory:": 3, "Related Context:": 3}
    assert words(text) <= 35
    assert blocks(split_fit(MEM, OBS, 35, 0.0, words, fit)) == {"Relevant Memory:": 6}
    assert blocks(split_fit(MEM, OBS, 35, 1.0, words, fit)) == {"Related Context:": 6}
    # 40 words: memory's 3 lines leave 3 of its 20 unused, and they go to the observations
    assert blocks(split_fit(MEM, OBS, 40, 0.5, words, fit)) == {"Relevant Memory:": 3, "Related Context:": 4}


def test_unused_share_flows_to_the_other():
    text = split_fit(MEM, OBS[:1], 40, 0.5, words, fit)  # observations need 7 of their 20
    assert blocks(text) == {"Relevant Memory:": 6, "Related Context:": 1} and words(text) <= 40
    text = split_fit(MEM[:1], OBS, 40, 0.5, words, fit)  # memory needs 7 of its 20
    assert blocks(text) == {"Relevant Memory:": 1, "Related Context:": 6} and words(text) <= 40
    assert blocks(split_fit([], OBS, 40, 0.4, words, fit)) == {"Related Context:": 7}
    assert blocks(split_fit(MEM, [], 40, 0.4, words, fit)) == {"Relevant Memory:": 7}
    assert split_fit([], [], 40, 0.4, words, fit) == ""


def test_sources():
    assert is_observation("observations/20260301-100000-abcd.md")
    assert not is_observation("MEMORY.md") and not is_observation("knowledge/zephyr.md")
