"""The generated docs are current: docs/configuration.md is what scripts/config_doc.py writes from the
settings models, every benchmark table and every marked figure in prose is what bench/docs_tables.py
writes from bench/results/, and the
README holds what a newcomer needs (its test command is the one CI runs) within 250 lines."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# pages other branches write; a link to them is not broken while they are being written


def _run(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, script, "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_configuration_page_is_generated_from_the_settings():
    r = _run("scripts/config_doc.py")
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_pipeline_table_is_generated_from_the_checks():
    r = _run("scripts/pipeline_doc.py")
    assert r.returncode == 0, r.stdout + r.stderr


def test_benchmark_tables_are_the_stored_runs():
    r = _run("bench/docs_tables.py")
    assert r.returncode == 0, r.stdout + r.stderr


def _tables():
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "bench" / "docs_tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_stale_or_unknown_table_is_found():
    t = _tables()
    problems: list[str] = []
    stale = "<!-- table:busy -->\n| a hand-edited figure |\n<!-- /table:busy -->\n"
    fresh = t.render(stale, problems, "page.md")
    assert fresh != stale and "| a hand-edited figure |" not in fresh and "2 threads" in fresh
    assert t.render(fresh, problems, "page.md") == fresh and problems == []
    t.render("<!-- table:nosuch -->\n<!-- /table:nosuch -->\n", problems, "page.md")
    assert problems == ["page.md: unknown table 'nosuch'"]


def test_a_stale_or_unknown_figure_is_found():
    t = _tables()
    problems: list[str] = []
    stale = "replies of <!-- fig:busy-tokens -->64<!-- /fig:busy-tokens --> tokens, median of 8\n"
    fresh = t.render(stale, problems, "page.md")
    want = f"<!-- fig:busy-tokens -->{t.FIGS['busy-tokens']()}<!-- /fig:busy-tokens -->"
    assert want in fresh and "-->64<" not in fresh and fresh.endswith(" tokens, median of 8\n")
    assert t.render(fresh, problems, "page.md") == fresh and problems == []
    assert t.stale(stale, fresh) == ["figure 'busy-tokens'"]
    t.render("a <!-- fig:nosuch -->1<!-- /fig:nosuch --> b", problems, "page.md")
    assert problems == ["page.md: unknown figure 'nosuch'"]


def test_every_marked_table_on_the_pages_is_filled():
    for page in _tables().pages():
        for name, body in re.findall(r"<!-- table:([\w-]+) -->\n(.*?)<!-- /table:\1 -->", page.read_text(), re.S):
            assert body.strip(), f"{page.name}: table {name} is empty"
        for name, body in re.findall(r"<!-- fig:([\w-]+) -->(.*?)<!-- /fig:\1 -->", page.read_text()):
            assert body.strip(), f"{page.name}: figure {name} is empty"


def test_readme_is_short_and_its_commands_are_what_ci_runs():
    """CI installs with README's first command (the 1.5B as the default) and runs README's test command."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    install, test = (part.strip() for part in (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1].split("&&"))
    assert install == "bash scripts/install.sh" and test == ".venv/bin/python -m pytest -q"
    assert f"```bash\n{install} && .venv/bin/nanobot chat\n```" in readme
    assert f"```bash\n{test}\n```" in readme
    assert "nanobot models install qwen2.5-coder-1.5b" in readme and "scripts/install.sh --tiny" in readme


def test_relative_links_in_the_docs_resolve():
    broken = []
    for page in [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            path = (page.parent / target).resolve()
            if not path.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
