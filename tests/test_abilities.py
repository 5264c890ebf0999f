"""Typed backend abilities (``backends.base.Abilities``): each backend declares what it can do beyond
the ``ChatModel`` contract, and no caller probes a model's attributes for it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from nanobot.backends.base import Abilities, abilities
from nanobot.config import load_settings
from nanobot.runtime import load_model
from tests.openai_fake import closed_port_url

PKG = Path(__file__).resolve().parent.parent / "nanobot"
PROBED = {"settings", "prefix_probability", "tool_template", "llm", "prefill", "detect", "token_counting"}


def test_the_llama_backend_declares_what_it_can_do(home):
    model = load_model(load_settings(), vocab_only=True)
    can = abilities(model)
    assert model.abilities is not None and isinstance(can, Abilities)
    assert (can.sampling, can.first_token, can.state_save, can.prefill, can.server) == (True, True, True, True, False)
    assert can.exact_tokens and can.tool_template == model.tool_template


def test_a_model_server_declares_sampling_and_server_without_a_probe(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("\n".join(['model = "srv"', "[models.srv]",
                                                 f"base_url = {json.dumps(closed_port_url())}"]) + "\n")
    can = abilities(load_model(load_settings(home)))  # nothing listens: reading them must not probe
    assert (can.sampling, can.server, can.first_token, can.prefill, can.state_save) == (True, True, False, False, False)
    assert not can.exact_tokens


def test_a_model_that_declares_nothing_has_nothing_extra():
    assert abilities(object()) == Abilities(sampling=False, first_token=False, prefill=False)


def probes(pkg: Path = PKG) -> list[str]:
    """``hasattr(m, X)`` / ``getattr(m, X, …)`` with X an ability's attribute, outside backends/."""
    found = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel.startswith("backends/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("hasattr", "getattr")
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in PROBED and "model" in ast.unparse(node.args[0])):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_no_caller_probes_a_model_for_an_ability():
    assert probes() == []
