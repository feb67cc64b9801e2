"""``cardrl demo``: the main job on a small default budget (a few minutes on 2 cores).

1. trains a policy for each game by self-play (``configs/demo_*.yaml``, a 90-second budget each,
   evaluated several times on the way: the learning curves). Before each game's clock
   starts, :func:`warm_up` compiles every kernel its training runs (numba compiles on first
   use and caches on disk: tens of seconds after a fresh install, which would otherwise come
   out of the 90 seconds), with a progress line;
2. evaluates each trained policy against the heuristics and random play in a
   duplicate-deal tournament;
3. writes tables, learning curves and tournament plots to ``--out`` (``runs/demo``, an
   ignored folder) and prints where they are and how they compare with the committed
   demo in ``results/demo`` (regenerated only by an explicit ``--out results/demo``).

A 90-second policy is not expected to beat the heuristics; the policies trained for up to
60 minutes each (search included) are the committed defaults in ``agents/checkpoints/``,
with their runs in ``results/training/`` and their tournaments in ``results/proof/`` and
``results/tournaments/``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import tempfile
import time
from pathlib import Path

from envs import registry

#: game -> (training config, tournament options, line-up beside the trained policy): the
#: games whose descriptor declares a ``demo``
DEMO_GAMES = registry.Declared("demo")
#: the default output folder (runs/ is ignored by git)
DEFAULT_OUT = "runs/demo"
#: the committed demo results, as the repository names them
COMMITTED = "results/demo"
#: where the committed demo lies in this checkout
COMMITTED_DIR = Path(__file__).resolve().parents[1] / COMMITTED
#: what a reader of the demo should know about its policies, one line each
EXPECTATIONS = (
    "A 90-second run shows the pipeline end to end; its policies are not expected to beat "
    "the heuristics (a tie is luck).",
    "The real policies (up to 60 minutes of training each on 2 cores, search included) are "
    "the committed checkpoints in agents/checkpoints/ (agents.make(\"policy\", game)); their "
    "training runs are in results/training/, their tournaments in results/proof/ and "
    "results/tournaments/.",
)
#: how :func:`warm_up` changes a demo config: one iteration of a few games, one evaluation
#: deal at the end, no baselines, snapshots or checkpoints. numba compiles a kernel once per
#: argument types, not per batch size, so this compiles every kernel of the real run.
WARM_UP_SETTINGS = {"total_steps": 1, "num_games": 16, "eval.interval": 0, "eval.deals": 1,
                    "eval.baselines": [], "snapshot_interval": 0, "checkpoint_interval": 0}
#: the games whose kernels this process has compiled (or loaded) already
_WARMED: set[str] = set()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"output folder (default {DEFAULT_OUT}, not committed; "
                             f"--out {COMMITTED} regenerates the committed demo)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="training minutes per game (default: the demo configs', 1.5)")
    parser.add_argument("--deals", type=int, default=300,
                        help="tournament deals per game, each in every seat rotation (300)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument("--games", default=",".join(DEMO_GAMES),
                        help="comma-separated games to run (default both)")


def _demote(markdown: str) -> str:
    """Headings two levels down, to nest a tournament summary in the demo report."""
    return "\n".join("##" + line if line.startswith("#") else line for line in markdown.split("\n"))


def result_command(game: str, args: argparse.Namespace) -> str:
    return f"cardrl demo --games {game} --deals {args.deals} --seed {args.seed} --out {args.out}"


def _games(text: str) -> list[str]:
    games = [g.strip() for g in text.split(",") if g.strip()]
    for game in games:
        if game in registry.GAMES and game not in DEMO_GAMES:
            raise ValueError(f"game {game!r} provides no demo recipe")
    unknown = sorted(set(games) - set(DEMO_GAMES))
    if unknown or not games:
        raise ValueError(f"cardrl demo --games {text!r}: unknown game(s) {unknown}; expected "
                         f"a comma-separated subset of {', '.join(DEMO_GAMES)}")
    return games


def _is_committed(out: Path) -> bool:
    return out.resolve() == COMMITTED_DIR.resolve()


def comparison(out: Path, games: list[str], committed: Path = COMMITTED_DIR):
    """The mean points per deal of each entrant in this demo's tournaments beside those of
    the committed demo (a DataFrame), or None when there is no committed demo to read."""
    import pandas as pd

    rows = []
    for game in games:
        ours = pd.read_csv(out / f"tournament_{game}" / "summary.csv")
        theirs_path = committed / f"tournament_{game}" / "summary.csv"
        if not theirs_path.exists():
            return None
        theirs = pd.read_csv(theirs_path).set_index("agent")["mean_points"]
        for agent, points in zip(ours["agent"], ours["mean_points"], strict=True):
            rows.append({"game": game, "agent": agent, "this run": points,
                         COMMITTED: theirs.get(agent, float("nan"))})
    return pd.DataFrame(rows)


def warm_up(game: str, config_path: str | Path) -> float | None:
    """Compile, or load from numba's disk cache, every kernel the demo training of ``game``
    runs (engine, observations, features, agents, evaluation), so that none is compiled
    on the training clock: a silent one-iteration run of ``config_path`` changed by
    :data:`WARM_UP_SETTINGS`, in a temporary folder. Returns its seconds, or None when this
    process has warmed ``game`` up already."""
    from training.config import load_config
    from training.train import train

    if game in _WARMED:
        return None
    cfg = load_config(config_path, settings=WARM_UP_SETTINGS)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cardrl-demo-warm-up-") as folder, \
            contextlib.redirect_stdout(io.StringIO()):
        train(cfg, Path(folder) / "run", progress=False)
    _WARMED.add(game)
    return time.perf_counter() - start


def run(args: argparse.Namespace) -> int:
    from arena.tournament import run_tournament, summary_markdown
    from training.config import load_config
    from training.train import train

    games = _games(args.games)
    if args.deals < 1:
        raise ValueError(f"cardrl demo --deals {args.deals}: expected an integer >= 1")
    configs = {game: load_config(DEMO_GAMES[game][0], {"max_minutes": args.minutes})
               for game in games}  # every config is checked before anything is written
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = f"cardrl demo --out {args.out} --deals {args.deals} --seed {args.seed}"
    report = ["# cardrl demo", "", f"Command: `{command}`; {date}.", "",
              *(f"{line}\n" for line in EXPECTATIONS), ""]
    for game in games:
        config_path, options, lineup = DEMO_GAMES[game]
        cfg = configs[game]
        run_dir, tournament_dir = out / f"train_{game}", out / f"tournament_{game}"
        for previous in (run_dir, tournament_dir):  # each demo is a fresh run: no resuming
            shutil.rmtree(previous, ignore_errors=True)
        print(f"\n== {game}: compiling the game's kernels before the training clock starts "
              "(numba: tens of seconds on the first run after an install, then loaded from "
              "its cache) ==", flush=True)
        seconds = warm_up(game, config_path)
        print("compiled already in this process" if seconds is None else
              f"compiled or loaded in {seconds:.0f} s (not part of the training budget)")
        print(f"== {game}: training {config_path} for up to {cfg.max_minutes} min ==")
        summary = train(cfg, run_dir, progress=True)
        print(f"trained {summary['steps']:,} decisions in {summary['seconds']:.0f} s")

        print(f"== {game}: duplicate tournament, {args.deals} deals ==")
        entrants = ["trained=policy", *lineup]
        result = run_tournament(
            game, entrants, deals=args.deals, seed=args.seed, options=options,
            out_dir=tournament_dir,
            agent_kwargs={"trained": {"path": str(run_dir / "policy.pt")}},
            command=result_command(game, args),
        )  # fmt: skip
        table = result.summary[["agent", "games", "mean_points", "ci_low", "ci_high", "rating"]]
        print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        report += [
            f"## {game} ({', '.join(f'{k}={v}' for k, v in options.items())})",
            "",
            f"Trained {summary['steps']:,} learner decisions in {summary['seconds']:.0f} s "
            f"(`{config_path}`); learning curve: `train_{game}/learning_curve.png`.",
            "",
            _demote(summary_markdown(result, result_command(game, args))),
            f"Plots: `tournament_{game}/points.png`, `tournament_{game}/head_to_head.png`.",
            "",
        ]
    (out / "README.md").write_text("\n".join(report))
    print(f"\nresults: {out}/README.md (tables), {out}/train_<game>/learning_curve.png, "
          f"{out}/tournament_<game>/points.png")
    if _is_committed(out):
        print(f"this run regenerated the committed demo in {COMMITTED}/")
    else:
        table = comparison(out, games)
        if table is None:
            print(f"(no committed demo in {COMMITTED}/ to compare with)")
        else:
            print(f"mean points per deal, this run vs. the committed demo ({COMMITTED}/README.md):")
            print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        print(f"(to regenerate the committed demo: cardrl demo --out {COMMITTED})")
    for line in EXPECTATIONS:
        print(line)
    return 0
