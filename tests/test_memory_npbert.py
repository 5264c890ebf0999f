"""The numpy BERT path gives the bundled MiniLM's sentence-transformers vectors (differential test),
and a memory search in a fresh process never imports torch."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from nanobot.memory.embedder import Embedder, bundled_embedder_path
from nanobot.memory.npbert import NumpyBert, supports
from tests.conftest import ROOT

pytestmark = pytest.mark.slow
TEXTS = ["What did I tell you about the flat in Porto?", "x", "Ünïcödé and emoji 🙂 text",
         "A much longer sentence about boilers and beagles. " * 40]  # past max_seq_length: truncated


def test_same_vectors_as_sentence_transformers():
    path = bundled_embedder_path()
    assert supports(path)
    mine = NumpyBert(path).encode(TEXTS, batch_size=2)
    theirs = Embedder(path, "torch").embed(TEXTS)
    assert mine.shape == theirs.shape == (4, 384)
    assert np.abs(mine - theirs).max() < 1e-4
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)


def test_search_in_a_fresh_process_never_imports_torch(home):
    code = ("import sys; from nanobot.config import load_settings; from nanobot.workspace import init_workspace\n"
            "from nanobot.memory.service import get_service\n"
            "s = load_settings(); init_workspace(s.workspace)\n"
            "(s.workspace / 'MEMORY.md').write_text('# Memory\\n- The boiler code is 4711.\\n')\n"
            "svc = get_service(s); hits = svc.search('boiler code', 1)\n"
            "print(hits[0].text, svc.embedder.backend, 'torch' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={"NANOBOT_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["The", "boiler", "code", "is", "4711.", "numpy", "False"]
