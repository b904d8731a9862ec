"""Progress that says where a run is: named steps, each with a total fixed when it starts, the current
document, case or check, the time elapsed and an estimate of what remains.

On a terminal: a rich progress display (one bar per step). Otherwise (a pipe, a log file, CI): plain lines,
one per change, never rewritten, so a log reads in order:
``[1/4] lecture des pièces 3/8 : 03-courriel.eml — 1,2 s, reste ≈ 2 s``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def seconds(x: float) -> str:
    """A duration in French: « 4,2 s », « 2 min 05 s »."""
    if x < 60:
        return f"{x:.1f} s".replace(".", ",")
    m, s = divmod(int(round(x)), 60)
    return f"{m} min {s:02d} s"


class StepProgress:
    """Named steps shown one after another; ``start(step, total)`` fixes a step's total before it runs."""

    def __init__(self, console: Console, steps: list[str], live: bool | None = None) -> None:
        self.console, self.steps = console, steps
        self.live = console.is_terminal if live is None else live
        self.t0 = time.monotonic()
        self.current: str | None = None
        self.total = 0
        self.done = 0
        self.step_t0 = self.t0
        self.last_line = ""
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        if self.live:
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[item]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
            self.bar.start()

    def start(self, step: str, total: int, item: str = "") -> None:
        """Begin ``step`` (closing the one before at its total); ``total`` stays fixed for this step."""
        if step == self.current:
            return
        self.finish_step("non exécutées")
        self.current, self.total, self.done, self.step_t0 = step, max(total, 1), 0, time.monotonic()
        if self.bar is not None:
            label = f"[{self.steps.index(step) + 1}/{len(self.steps)}] {step}" if step in self.steps else step
            self.task = self.bar.add_task(label, total=self.total, item=item)
        self._line(item)

    def advance(self, done: int, item: str = "") -> None:
        done = max(self.done, min(done, self.total))  # never backwards, never past the total
        if done == self.done and not item:
            return
        self.done = done
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, completed=done, item=item)
        self._line(item)

    def finish_step(self, skipped: str = "") -> None:
        """The step is over: its bar at its total; ``skipped`` words what was left undone (said, not hidden)."""
        if self.current is not None and self.done < self.total:
            left = self.total - self.done
            self.advance(self.total, f"dont {left} {skipped}" if skipped else "")

    def stop(self, words: str = "") -> None:
        self.finish_step("non exécutées")
        if self.bar is not None:
            self.bar.stop()
        if words:
            self.console.print(f"{words} ({seconds(time.monotonic() - self.t0)})", highlight=False, markup=False)

    def _line(self, item: str) -> None:
        if self.bar is not None or self.current is None:
            return
        n = f"[{self.steps.index(self.current) + 1}/{len(self.steps)}] " if self.current in self.steps else ""
        elapsed = time.monotonic() - self.step_t0
        eta = ""
        if 0 < self.done < self.total:
            eta = f", reste ≈ {seconds(elapsed / self.done * (self.total - self.done))}"
        line = f"{n}{self.current} {self.done}/{self.total}{' : ' + item if item else ''}"
        if line == self.last_line:
            return
        self.last_line = line
        self.console.print(f"{line} — {seconds(elapsed)}{eta}", highlight=False, markup=False, soft_wrap=True)


DOSSIER_STEPS = ["lecture des pièces", "extraction des faits", "plan des vérifications", "vérifications", "verdict"]
STAGE_STEPS = {"ingest": "lecture des pièces", "perceive": "extraction des faits"}
PHASE_STEPS = {"PLANNING": "plan des vérifications", "EXECUTING": "vérifications", "EVALUATING": "verdict"}


class DossierView:
    """The dossier run's callbacks (``run_dossier``'s on_start, on_progress, on_transition) on a StepProgress."""

    def __init__(self, console: Console, live: bool | None = None) -> None:
        self.p = StepProgress(console, DOSSIER_STEPS, live)
        self.checks: list[str] = []

    def on_progress(self, stage: str, done: int, total: int, item: str) -> None:
        step = STAGE_STEPS.get(stage, stage)
        if step != self.p.current:
            self.p.start(step, total, item)
        else:
            self.p.advance(done, item)

    def on_transition(self, state: Any, seq: int) -> None:
        phase = state.phase.value
        step = PHASE_STEPS.get(phase)
        if step == "vérifications" and state.plan is not None:
            if not self.checks:  # fixed when the step starts: the symbolic analysis, then each planned check
                self.checks = [t.id for t in state.plan.tasks if t.kind == "check"]
            self.p.start(step, 1 + len(self.checks))
            tasks = {t.id: t for t in state.plan.tasks}
            done = (1 if state.outcomes is not None else 0) + sum(
                1 for c in self.checks if c in tasks and tasks[c].status != "pending"
            )
            nxt = state.plan.next_ready()
            self.p.advance(done, nxt.label if nxt is not None and nxt.kind == "check" else "")
        elif step is not None:
            self.p.start(step, 1)
        elif phase in ("VERDICT", "INTERACTING", "INCONSISTENT"):
            self.p.start("verdict", 1)
            self.p.advance(1)

    def pause(self) -> None:
        """Before a question at the prompt: the display must not redraw over it."""
        if self.p.bar is not None:
            self.p.bar.stop()

    def callbacks(self) -> dict[str, Callable[..., Any]]:
        return {"on_progress": self.on_progress, "on_transition": self.on_transition}
