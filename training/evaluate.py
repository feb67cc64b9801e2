"""The evaluation of a training run: duplicate-deal tournaments against a fixed opponent.

Every ``eval.interval`` learner decisions the policy plays in one seat against
``eval.opponent`` in every other seat, on duplicate deals under every seat rotation: the
one-seat evaluation of :mod:`arena.one_seat`. The score is the policy's mean points per
deal; the difference is its mean points minus the opponents' mean points on the same
deals, with a 95 % CI over deals. Each ``eval.baselines`` agent is scored the same way in
the policy's place once per run: the horizontal lines of the learning curve.

:class:`Evaluator` keeps a run folder's ``eval.csv``, ``baselines.json``,
``policy_best.pt`` and ``learning_curve.png``, each written whole or not at all
(:func:`training.resume.write_file`). An evaluation draws nothing from the trainer's
generators (:func:`isolated_generators`): a run evaluated more or less often, or by more
``eval.workers``, trains the same network. :func:`check_evaluation` builds the agents of
the evaluations before a run creates anything, so an ``eval.opponent`` that cannot play
the run's table is refused at once.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from arena.one_seat import check_one_seat, evaluate_one_seat, table_options
from training.config import TrainConfig
from training.resume import write_file


def score_candidate(game: str, options: dict, candidate: str, opponent: str, deals: int,
                    seed: int, workers: int = 1, kwargs: dict | None = None) -> dict:
    """``candidate`` in one seat, ``opponent`` in all others, every rotation, duplicate
    deals (:func:`arena.one_seat.evaluate_one_seat`): an evaluation row, its mean points
    per deal, the opponents', and the paired difference + CI."""
    measured = evaluate_one_seat(game, candidate, opponent, deals, seed, options,
                                 candidate_kwargs=kwargs, workers=workers)
    return {"points": measured.candidate_points, "opponent_points": measured.field_points,
            "diff": measured.diff, "diff_low": measured.diff_low,
            "diff_high": measured.diff_high, "deals": deals,
            "seconds": measured.tournament.elapsed_s}


@contextlib.contextmanager
def isolated_generators() -> Iterator[None]:
    """Run the block with torch's, NumPy's and Python's global generators put back as they
    were afterwards: what it draws (the networks an evaluation builds) leaves the training
    run's numbers unchanged."""
    import torch

    numpy_state, python_state = np.random.get_state(), random.getstate()
    with torch.random.fork_rng(devices=[]):
        try:
            yield
        finally:
            np.random.set_state(numpy_state)
            random.setstate(python_state)


def _strip_label(message: str) -> str:
    """A tournament's message without its leading ``agent 'LABEL': ``."""
    if message.startswith("agent '") and "': " in message:
        return message.split("': ", 1)[1]
    return message


def check_evaluation(cfg: TrainConfig) -> None:
    """Build the agents of the run's evaluations as their tournaments will (arena's
    ``build_entrants``: a policy is asked whether it plays the table and acts on its first
    decision); ``ValueError`` naming the field (``eval.opponent``, ``eval.baselines[i]``)
    when one cannot play the config's table: a checkpoint of another game, variant or
    observation size, a file that is not a checkpoint. Plays no game, creates nothing."""
    e = cfg.eval
    for field, name in [("eval.opponent", e.opponent),
                        *((f"eval.baselines[{i}]", b) for i, b in enumerate(e.baselines))]:
        try:
            check_one_seat(cfg.game, name, e.opponent, e.deals, e.seed, cfg.options)
        except ValueError as error:
            message = _strip_label(str(error).strip().splitlines()[0] if str(error) else "")
            raise ValueError(f"{field}: {name!r} cannot play the run's table ({cfg.game} "
                             f"{table_options(cfg.options)}): {message}") from None


class Evaluator:
    """Scores checkpoints on the same duplicate deals; keeps eval.csv, baselines.json and
    the learning curve of a run folder."""

    def __init__(self, cfg: TrainConfig, run_dir: Path):
        self.cfg = cfg
        self.run_dir = run_dir
        self.csv = run_dir / "eval.csv"
        self.rows: list[dict] = []
        if self.csv.exists():
            import pandas as pd

            try:
                self.rows = pd.read_csv(self.csv).to_dict("records")
            except (ValueError, OSError) as error:  # pandas' parser errors are ValueErrors
                raise ValueError(f"{self.csv} cannot be read ({error}); expected the eval.csv "
                                 f"of an earlier session of this run") from None
            missing = {"steps", "diff"} - set(self.rows[0]) if self.rows else set()
            if missing:
                raise ValueError(f"{self.csv} lacks the column(s) {sorted(missing)}; expected "
                                 f"the eval.csv of an earlier session of this run")
        self.best = max((r["diff"] for r in self.rows), default=-math.inf)
        self._baselines: dict | None = None

    def baselines(self) -> dict:
        """The baseline agents' scores, computed once per run (baselines.json)."""
        path = self.run_dir / "baselines.json"
        if self._baselines is None and path.exists():
            try:
                self._baselines = json.loads(path.read_text())
            except (ValueError, OSError) as error:
                raise ValueError(f"{path} cannot be read ({error}); expected the baselines "
                                 f"of an earlier session of this run") from None
        if self._baselines is None:
            e = self.cfg.eval
            with isolated_generators():
                baselines = {
                    name: score_candidate(self.cfg.game, self.cfg.options, name, e.opponent,
                                          e.deals, e.seed, e.workers)
                    for name in e.baselines
                }
            text = json.dumps(baselines, indent=2) + "\n"
            write_file(path, lambda tmp: tmp.write_text(text))
            self._baselines = baselines
        return self._baselines

    def keep(self, count: int) -> None:
        """Keep only the first ``count`` rows of eval.csv (the evaluations of the training
        state a resume continues from; the later ones are done again), rewriting the file
        and the best score when there were more."""
        if count >= len(self.rows):
            return
        self.rows = self.rows[:count]
        self.best = max((r["diff"] for r in self.rows), default=-math.inf)
        self._write_rows()

    def _write_rows(self) -> None:
        import pandas as pd

        frame = pd.DataFrame(self.rows)
        write_file(self.csv, lambda tmp: frame.to_csv(tmp, index=False))

    def evaluate(self, policy_path: Path, steps: int, elapsed_s: float) -> dict:
        """Score the checkpoint at ``policy_path``; append its row to eval.csv, keep it as
        policy_best.pt if it is the best so far, redraw the curve. The row."""
        e = self.cfg.eval
        with isolated_generators():
            row = score_candidate(self.cfg.game, self.cfg.options, "policy", e.opponent,
                                  e.deals, e.seed, e.workers, kwargs={"path": str(policy_path)})
        row = {"steps": int(steps), "train_seconds": round(elapsed_s, 1), **row}
        self.rows.append(row)
        try:
            self._write_rows()
        except BaseException:
            self.rows.pop()
            raise
        if row["diff"] > self.best:
            self.best = row["diff"]
            weights = policy_path.read_bytes()
            write_file(self.run_dir / "policy_best.pt", lambda tmp: tmp.write_bytes(weights))
        self.plot()
        return row

    def plot(self) -> Path:
        """Draw learning_curve.png: points and paired difference against learner decisions,
        and the difference against the run's training wall time (``train_seconds``: time
        to strength, not only decisions to strength)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        e = self.cfg.eval
        steps = np.array([r["steps"] for r in self.rows], dtype=float)
        minutes = np.array([r["train_seconds"] for r in self.rows], dtype=float) / 60.0
        fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4))
        ax1.plot(steps, [r["points"] for r in self.rows], "o-", color="C0", label="policy")
        colors = iter(["C1", "C2", "C3", "C4", "C5"])
        for name, base in self.baselines().items():
            ax1.axhline(base["points"], ls="--", color=next(colors), label=name)
        ax1.set(xlabel="learner decisions", ylabel="mean points per deal",
                title=f"{self.cfg.game} {_table_label(self.cfg)}: vs {e.opponent}")
        ax1.legend(fontsize=8)
        diff = np.array([r["diff"] for r in self.rows])
        low = np.array([r["diff_low"] for r in self.rows])
        high = np.array([r["diff_high"] for r in self.rows])
        for ax, x, label in ((ax2, steps, "learner decisions"),
                             (ax3, minutes, "training wall time (minutes)")):
            ax.plot(x, diff, "o-", color="C0", label="policy - opponents")
            ax.fill_between(x, low, high, color="C0", alpha=0.2, label="95% CI")
            ax.axhline(0.0, ls="--", color="C1", label=f"{e.opponent} (= 0)")
            ax.set(xlabel=label, ylabel="points difference per deal",
                   title=f"duplicate, {e.deals} deals x every rotation")
            ax.legend(fontsize=8)
        fig.tight_layout()
        try:
            path = write_file(self.run_dir / "learning_curve.png",
                              lambda tmp: fig.savefig(tmp, dpi=100, format="png"))
        finally:
            plt.close(fig)
        return path


def _table_label(cfg: TrainConfig) -> str:
    """``variant=four`` / ``num_players=4`` where the config picks the table size."""
    from envs.registry import get

    option = get(cfg.game).table_option
    return f"{option}={cfg.options[option]}" if option in cfg.options else ""


def eval_line(row: dict) -> str:
    """One line on an evaluation row: the policy's points, the opponents', the difference."""
    return (f"eval @ {row['steps']:,} steps: policy {row['points']:.2f} pts/deal vs opponents "
            f"{row['opponent_points']:.2f}; diff {row['diff']:+.2f} "
            f"[{row['diff_low']:+.2f}, {row['diff_high']:+.2f}]")
