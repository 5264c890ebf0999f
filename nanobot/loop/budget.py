"""One budget per turn: the model evaluations and seconds a turn may spend, whatever spends them.

``metered`` wraps a model's evaluation methods (``EVALUATIONS``: the reply's stream, a tool step, a
judgement, a rewrite) once on the instance, so each draws one evaluation from the budget of the turn
running on the calling thread before it starts: no stage spends outside it, and a new stage needs no
counter of its own. A judgement the backend answers from what it kept (``last_read``: a draft's,
judged before Enter) gives its draw back and is counted in ``read``. A call inside another
(``yes_no_apart`` asking ``yes_no``) is part of it; calls on other threads (the prefill, housekeeping) and between turns draw nothing. Spent, a draw raises
``BudgetSpent`` (a ``ModelError``): a judgement then has no answer and its caller's fallback decides;
a step or a retry ends the turn with the best reply so far and one line (``loop.checkedturn``). A
generation nobody reads as it comes (a call's arguments, a file's rewrite) also stops once the seconds
are spent, so no one stage carries the turn far past them; the reply the user reads is not cut.

>>> b = TurnBudget(evaluations=2, seconds=60.0)
>>> b.start(); b.draw("stream"); b.draw("yes_no"); b.room()
False
>>> b.stop()
>>> b.spent_line()
'(nanobot: this turn used its budget of 2 model evaluations; the reply above is the best it had.)'
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import time
from collections import Counter
from typing import Any

from nanobot.base.errors import ModelError

EVALUATIONS = ("stream", "yes_no", "yes_no_apart", "generate_apart", "prefix_probability")
SET_UP = "set_up"  # ``spent_s``'s key for the seconds of set-up work inside a turn (``unmetered``)
READS = ("yes_no_apart", "prefix_probability")  # may be answered from what the backend kept (``last_read``)


class BudgetSpent(ModelError):
    """The turn's budget is spent: the evaluation asked for does not run."""


_current = threading.local()  # the turn budget of the turn running on this thread


def current() -> TurnBudget | None:
    """The budget of the turn running on this thread; None between turns and on other threads."""
    return getattr(_current, "budget", None)


class TurnBudget:
    def __init__(self, evaluations: int, seconds: float, clock: Any = time.monotonic) -> None:
        self.evaluations, self.seconds, self.clock = evaluations, seconds, clock
        self.used: Counter[str] = Counter()  # evaluations this turn, by model method
        self.read: Counter[str] = Counter()  # calls answered from what the backend kept, which cost none
        self.spent_s: Counter[str] = Counter()  # seconds inside each model method this turn
        self.began = clock()
        self.depth = 0  # evaluations running inside another
        self.cut = False  # a draw was refused this turn

    def start(self) -> None:
        self.used, self.read, self.spent_s = Counter(), Counter(), Counter()
        self.began, self.cut, self.depth = self.clock(), False, 0
        _current.budget = self

    def stop(self) -> None:
        if current() is self:
            _current.budget = None

    @property
    def elapsed(self) -> float:
        return self.clock() - self.began

    def room(self) -> bool:
        return sum(self.used.values()) < self.evaluations and self.elapsed < self.seconds

    def draw(self, stage: str) -> None:
        if not self.room():
            self.cut = True
            raise BudgetSpent(f"the turn's budget is spent ({self.spent_what()})")
        self.used[stage] += 1

    def spent_what(self) -> str:
        if sum(self.used.values()) >= self.evaluations:
            return f"{self.evaluations} model evaluations"
        return f"{self.seconds:g} s"

    def spent_line(self, shown: str = "the reply above is the best it had") -> str:
        return f"(nanobot: this turn used its budget of {self.spent_what()}; {shown}.)"


def metered(model: Any, budget: TurnBudget) -> TurnBudget:
    """Make each of ``model``'s evaluation methods draw from the budget of the turn running on the
    calling thread (wrapped on the instance once, so every holder of the model is metered; a wrapper
    around a model, itself metered, draws once for both); returns ``budget``."""
    if not vars(model).get("_nanobot_metered"):
        for name in EVALUATIONS:
            method = getattr(model, name, None)
            if callable(method):
                object.__setattr__(model, name, _drawing(name, method))  # on this object, not one it wraps
        object.__setattr__(model, "_nanobot_metered", True)
    return budget


@contextlib.contextmanager
def unmetered():
    """Evaluations inside draw nothing: set-up done once per model and process (a classifier's
    calibration, kept on disk after), which no turn asked for."""
    budget = current()
    if budget is None:
        yield
        return
    budget.depth, began = budget.depth + 1, budget.clock()
    try:
        yield
    finally:
        budget.depth -= 1
        budget.began += budget.clock() - began  # nor its seconds
        budget.spent_s[SET_UP] += budget.clock() - began  # shown apart under -v


def _drawing(name: str, method: Any) -> Any:
    @functools.wraps(method)
    def call(*args: Any, **kw: Any) -> Any:
        budget = current()
        if budget is None or budget.depth:
            out = method(*args, **kw)  # part of the evaluation running: a rewrite's own stream
            return _timed(out, budget) if budget is not None and inspect.isgenerator(out) else out
        budget.draw(name)
        budget.depth += 1
        began = budget.clock()
        try:
            out = method(*args, **kw)
        finally:
            budget.depth -= 1
            budget.spent_s[name] += budget.clock() - began
        if name in READS and getattr(getattr(method, "__self__", None), "last_read", False) is True:
            budget.used[name] -= 1  # answered from what was kept (a draft's judgement): no evaluation
            if not budget.used[name]:
                del budget.used[name]
            budget.read[name] += 1
        return _inside(out, budget, name, timed=bool(kw.get("grammar"))) if inspect.isgenerator(out) else out
    return call


def _on_time(budget: TurnBudget) -> None:
    """Raise ``BudgetSpent`` once the turn's seconds are spent."""
    if budget.elapsed >= budget.seconds:
        budget.cut = True
        raise BudgetSpent(f"the turn's budget is spent ({budget.seconds:g} s)")


def _timed(gen: Any, budget: TurnBudget) -> Any:
    """``gen`` (a generation nobody reads as it comes: a rewrite), stopped once the turn's seconds are
    spent, so a long one cannot carry the turn far past its budget."""
    try:
        for piece in gen:
            yield piece
            _on_time(budget)
    finally:
        gen.close()


def _inside(gen: Any, budget: TurnBudget, name: str, timed: bool = False) -> Any:
    """``gen`` (a stream), each step run inside its own evaluation: what it asks of a model is part of it.
    ``timed`` (a call's arguments under their grammar, which nobody reads as they come): stopped once
    the turn's seconds are spent; the reply the user reads as it comes is not cut."""
    try:
        while True:
            budget.depth += 1
            began = budget.clock()
            try:
                piece = next(gen)
            except StopIteration as stop:
                return stop.value
            finally:
                budget.depth -= 1
                budget.spent_s[name] += budget.clock() - began
            yield piece
            if timed:
                _on_time(budget)
    finally:
        gen.close()
