"""The coding bench's check-only half (bench/coding/check2.py) and its second development half
(bench/coding/dev2.py, the check-only half until round 52) are well formed and scored truly: every
repository builds as a git repository and its tests run, a repository with a fix step starts with
failing tests, every step fails the scorer's checks on the untouched repository and passes them after
the set's hand-made answer (``SOLVED``). No model; the set's texts are never printed, a failure names
the repository, the step's number and kind and how many checks failed."""

import importlib
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench" / "coding"))
sys.path.insert(0, str(ROOT / "bench"))

import coding_bench as cb  # noqa: E402

CHECK = importlib.import_module("check2")
DEV2 = importlib.import_module("dev2")
DO_NOT_READ = ("DEVELOPERS: DO NOT READ THIS FILE. It is only run and checked, never read, never tuned on; "
               "report its summary numbers only.")
KINDS = {"add_function", "add_test", "run_tests", "fix", "rename"}
ENV = os.environ | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
                    "PYTHONDONTWRITEBYTECODE": "1"}


def _solve(path: Path, edits) -> None:
    for name, old, new in edits:
        f = path / name
        text = f.read_text() if f.exists() else ""
        assert old in text, f"an answer's edit does not apply to {name}"
        f.write_text(text + new if not old else text.replace(old, new))


def test_the_check_only_set_is_marked():
    assert CHECK.__doc__.startswith(DO_NOT_READ)
    assert not DEV2.__doc__.startswith("DEVELOPERS")


@pytest.mark.parametrize("module", [CHECK, DEV2], ids=["check2", "dev2"])
def test_the_set_spans_the_kinds_and_languages(module):
    repos = module.REPOS
    assert len(repos) == 6 and len({r.name for r in repos}) == 6
    assert sorted(r.lang for r in repos) == ["js", "python", "python", "python", "python", "shell"]
    assert {s.kind for r in repos for s in r.steps} == KINDS
    for r in repos:
        assert 3 <= len(r.steps) <= 5 and {s.kind for s in r.steps} <= KINDS, r.name
        assert len(module.SOLVED[r.name]) == len(r.steps), r.name
        assert all("\n" not in s.say for s in r.steps), r.name  # a step is one line of the chat
        assert any(cb.is_runner(c) for c in r.allow), r.name
    others = [m for m in (importlib.import_module("dev"), DEV2, CHECK) if m is not module]
    assert not {r.name for r in repos} & {r.name for m in others for r in m.REPOS}


@pytest.mark.parametrize("repo, solved", [(r, CHECK.SOLVED) for r in CHECK.REPOS]
                         + [(r, DEV2.SOLVED) for r in DEV2.REPOS], ids=lambda x: getattr(x, "name", ""))
def test_each_step_fails_untouched_and_passes_when_solved(repo, solved, tmp_path):
    if repo.lang == "js" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    path = cb.make(repo, tmp_path / repo.name)
    planted = any(s.kind == "fix" for s in repo.steps)
    ok = cb._run(repo.test, path, ENV)
    assert ok is not planted, f"{repo.name}: its tests {'pass' if ok else 'fail'} before any step"
    for i, (step, edits) in enumerate(zip(repo.steps, solved[repo.name], strict=True), 1):
        before = cb.snapshot(path)
        n = len(cb.check(step, repo, before, before, path, ENV, False)[0])
        assert n > 0, f"{repo.name} step {i} ({step.kind}) is right with no change"
        _solve(path, edits)
        failed, destroyed, left = cb.check(step, repo, before, cb.snapshot(path), path, ENV, step.run)
        n, d, c = len(failed), len(destroyed), len(left)
        assert (n, d, c) == (0, 0, 0), f"{repo.name} step {i} ({step.kind}): {n} checks fail on its answer"
