"""``cardrl demo``: the main job on a small default budget (a few minutes on 2 cores).

1. trains a policy for each game by self-play (``configs/demo_*.yaml``, ~90 s each);
2. evaluates each trained policy against the heuristics and random play in a
   duplicate-deal tournament;
3. writes tables, learning curves and tournament plots to ``--out`` (``results/demo``) and
   prints where they are.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

#: game -> (training config, tournament options, line-up beside the trained policy)
DEMO_GAMES = {
    "abracadabra": ("configs/demo_abracadabra.yaml", {"variant": "four"},
                    ["heuristic", "random"]),
    "four_aces": ("configs/demo_four_aces.yaml", {"num_players": 4}, ["greedy", "random"]),
}  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="results/demo", help="output folder (results/demo)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="training minutes per game (default: the demo configs', 1.5)")
    parser.add_argument("--deals", type=int, default=300,
                        help="tournament deals per game, each in every seat rotation (300)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument("--games", default="abracadabra,four_aces",
                        help="comma-separated games to run (default both)")


def _demote(markdown: str) -> str:
    """Headings two levels down, to nest a tournament summary in the demo report."""
    return "\n".join("##" + line if line.startswith("#") else line for line in markdown.split("\n"))


def result_command(game: str, args: argparse.Namespace) -> str:
    return f"cardrl demo --games {game} --deals {args.deals} --seed {args.seed} --out {args.out}"


def run(args: argparse.Namespace) -> int:
    from arena.tournament import run_tournament, summary_markdown
    from training.train import load_config, train

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = sorted(set(games) - set(DEMO_GAMES))
    if unknown:
        print(f"cardrl demo: unknown game(s) {unknown}: expected {sorted(DEMO_GAMES)}")
        return 2
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = f"cardrl demo --out {args.out} --deals {args.deals} --seed {args.seed}"
    report = ["# cardrl demo", "", f"Command: `{command}`; {date}.", ""]
    for game in games:
        config_path, options, lineup = DEMO_GAMES[game]
        cfg = load_config(config_path)
        if args.minutes is not None:
            cfg.max_minutes = args.minutes
        run_dir, tournament_dir = out / f"train_{game}", out / f"tournament_{game}"
        for previous in (run_dir, tournament_dir):  # each demo is a fresh run: no resuming
            shutil.rmtree(previous, ignore_errors=True)
        print(f"\n== {game}: training {config_path} for up to {cfg.max_minutes} min ==")
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
    print(f"\nwrote {out}/README.md, learning curves, tournament tables and plots under {out}/")
    return 0
