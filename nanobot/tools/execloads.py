"""What a test runner loads besides its arguments: pytest's config and conftest.py files, inside the roots.

pytest reads a config file and imports ``conftest.py`` from the folders of its arguments (the working
directory when there are none) *and their parents*: a ``pytest.ini``, ``pyproject.toml``, ``tox.ini``,
``setup.cfg`` or ``setup.py`` higher up makes that folder its rootdir (it writes its cache there, and
the config's ``addopts`` and plugins apply), and conftest files are imported from there down (pytest 7
walks up to ``/``). So with ``python3 -m pytest`` allowed, a ``conftest.py`` in a folder above the roots
would run on a test run inside the workspace. ``outside_loads`` refuses such a run, naming the file,
when a folder above the working directory or above an argument, outside every root, holds one. The
values of ``-o``/``--override-ini`` (``pythonpath=a /elsewhere``) are paths separated by spaces, each
held to the roots like any argument (``execargs.outside``).

Other runners import only what the code inside the roots asks for (``python3 x.py``, ``node x.js``), so
their arguments' check is the whole of it.

>>> is_pytest(["python3", "-B", "-m", "pytest", "-q"]), is_pytest(["pytest"]), is_pytest(["python3", "x.py"])
(True, True, False)
"""

from __future__ import annotations

import os
from pathlib import Path

from nanobot.tools.execargs import inside, outside

NAMES = ("pytest", "py.test")
# the files pytest looks for in a test's folder and every folder above it
LOADED = ("conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "pyproject.toml",
          "tox.ini", "setup.cfg", "setup.py")


def is_pytest(argv: list[str]) -> bool:
    """``pytest ...``, ``py.test ...`` or ``python -m pytest ...`` (interpreter options before ``-m``)."""
    if Path(argv[0]).name in NAMES:
        return True
    for i, word in enumerate(argv[1:], 1):
        if word == "-m":
            return i + 1 < len(argv) and argv[i + 1] in NAMES
        if not word.startswith("-"):
            return False
    return False


def outside_loads(argv: list[str], cwd: Path, roots: list[Path]) -> str | None:
    """Why a pytest run of ``argv`` in ``cwd`` would load a file outside ``roots``, or None."""
    if not is_pytest(argv):
        return None
    resolved = [Path(r).resolve() for r in roots]
    for i, word in enumerate(argv[:-1]):
        if word in ("-o", "--override-ini"):
            value = argv[i + 1].partition("=")[2]
            if why := outside(["", *value.split()], cwd, resolved, 1):
                return why
    starts = {Path(cwd).resolve()}
    for word in argv[1:]:
        path = Path(cwd, word.rpartition("=")[2].split("::")[0]).resolve()
        if os.path.exists(path):  # False where it cannot be looked at, as for pytest
            starts.add(path if path.is_dir() else path.parent)
    for start in sorted(starts):
        for folder in (start, *start.parents):
            if inside(folder, resolved):
                continue
            for name in LOADED:
                if os.path.exists(folder / name):
                    return f"pytest would load {folder / name}, which is outside the workspace and roots"
    return None
