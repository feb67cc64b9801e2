"""The training progress bar: it runs over the budget that will end the run.

A run stops at ``total_steps`` learner decisions or after ``max_minutes`` of training,
whichever comes first. The bar's fraction is the larger of the two fractions used (at
steady speed that one reaches 1 first), so its percentage and its remaining time are
those of the limit that actually ends the run; its text names that limit first, e.g.
``4.1/30 min of training (the time limit ends the run); 1.21M of 12M steps``.
"""

from __future__ import annotations

import time


def _count(n: float) -> str:
    """``1.21M``, ``350k``, ``812``."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= size:
            return f"{n / size:.3g}{suffix}"
    return f"{n:.0f}"


def budget_progress(steps: int, total_steps: int, elapsed_s: float,
                    max_minutes: float | None) -> tuple[float, str]:
    """(fraction of the run done, its text) for ``steps`` learner decisions and
    ``elapsed_s`` training seconds under the limits ``total_steps`` and ``max_minutes``."""
    step_fraction = steps / total_steps
    steps_text = f"{_count(steps)} of {_count(total_steps)} steps"
    if max_minutes is None:
        return min(step_fraction, 1.0), steps_text
    time_fraction = elapsed_s / (60.0 * max_minutes)
    minutes_text = f"{elapsed_s / 60:.1f}/{max_minutes:g} min of training"
    if time_fraction >= step_fraction:
        text = f"{minutes_text} (the time limit ends the run); {steps_text}"
    else:
        text = f"{steps_text} (the step limit ends the run); {minutes_text}"
    return min(max(step_fraction, time_fraction), 1.0), text


class BudgetBar:
    """A tqdm bar over the fraction of the run done (:func:`budget_progress`)."""

    def __init__(self, desc: str, total_steps: int, max_minutes: float | None, steps: int,
                 elapsed_s: float, disable: bool = False, min_interval_s: float = 0.5):
        from tqdm import tqdm

        self.total_steps, self.max_minutes = total_steps, max_minutes
        self.min_interval_s = min_interval_s
        fraction, text = budget_progress(steps, total_steps, elapsed_s, max_minutes)
        self.bar = tqdm(total=1.0, initial=fraction, desc=desc, disable=disable, postfix=text,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| "
                                   "{elapsed}<{remaining}{postfix}")
        self.text = text
        self.last_refresh = 0.0

    def update(self, steps: int, elapsed_s: float, extra: str = "") -> None:
        """Show ``steps`` done in ``elapsed_s`` training seconds (and ``extra`` text);
        redrawn at most every ``min_interval_s``."""
        fraction, self.text = budget_progress(steps, self.total_steps, elapsed_s,
                                              self.max_minutes)
        self.bar.n = fraction
        self.bar.set_postfix_str(f"{self.text}{'; ' + extra if extra else ''}", refresh=False)
        now = time.monotonic()
        if now - self.last_refresh >= self.min_interval_s:
            self.bar.refresh()
            self.last_refresh = now

    def close(self) -> None:
        self.bar.close()
