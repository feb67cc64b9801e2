"""The report of a finished tournament: summary.csv, head_to_head.csv, summary.md and its
two plots (points.png, head_to_head.png)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from arena.tournament.inputs import describe
from arena.tournament.result import TournamentResult
from arena.tournament.spec import command_line
from arena.tournament.storage import GAMES_FILE
from records.provenance import machine_line, utc_now


def _fmt(value: float, digits: int = 3) -> str:
    return (
        ""
        if value is None or (isinstance(value, float) and math.isnan(value))
        else (f"{value:.{digits}f}")
    )


def summary_markdown(result: TournamentResult, command: str | None = None) -> str:
    """The summary as a markdown document: command, machine and date, then the tables."""
    spec = result.spec
    seats = spec.num_seats
    lines = [
        f"# Tournament: {spec.game}",
        "",
        f"- command: `{command or command_line(spec)}`",
        f"- machine: {machine_line()}",
        f"- date: {utc_now()}",
        *(f"- input: {line}" for line in (describe(result.inputs) if result.inputs else [])),
        f"- options: {json.dumps(spec.options, sort_keys=True)}; {seats} seats; "
        f"{spec.deals} deals x {seats} rotations = {spec.deals * seats} games; "
        f"seed {spec.seed}",
        f"- wall time of the last call: {result.elapsed_s:.1f} s, of which "
        f"{result.play_s:.1f} s playing {result.played_deals} deals (the rest: resumed)"
        if result.played_deals < spec.deals
        else f"- wall time: {result.elapsed_s:.1f} s, of which {result.play_s:.1f} s playing",
        "",
        "mean_points: mean points per deal (match total in match mode), with its 95 % "
        "CI paired by deal; rating: OpenSkill ordinal (mu - 3 sigma).",
        "",
    ]
    has_chips = bool(result.summary["mean_chips"].notna().any())
    has_wins = bool(result.summary["win_rate"].notna().any())
    header = ["agent", "games", "mean_points", "95% CI"]
    header += ["mean_chips"] * has_chips + ["win_rate"] * has_wins
    header += ["rating", "mu", "sigma"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in result.summary.itertuples():
        cells = [row.agent, str(row.games), _fmt(row.mean_points),
                 f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"]  # fmt: skip
        cells += [_fmt(row.mean_chips)] * has_chips + [_fmt(row.win_rate)] * has_wins
        cells += [_fmt(row.rating, 2), _fmt(row.mu, 2), _fmt(row.sigma, 2)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Head to head",
        "",
        "mean_diff: agent's mean points per deal minus the opponent's, over the deals both "
        "played, with its 95 % CI.",
        "",
        "| agent | opponent | deals | mean_diff | 95% CI |",
        "|---|---|---|---|---|",
    ]
    order = {label: i for i, label in enumerate(spec.labels)}
    for row in result.head_to_head.itertuples():
        if order[row.agent] < order[row.opponent]:  # (b, a) mirrors (a, b)
            lines.append(
                f"| {row.agent} | {row.opponent} | {row.deals} | {_fmt(row.mean_diff)} | "
                f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}] |"
            )
    return "\n".join(lines) + "\n"


def write_outputs(
    result: TournamentResult, out_dir: Path, command: str | None = None
) -> list[Path]:
    """Write summary.csv, head_to_head.csv, summary.md, points.png, head_to_head.png, each
    through ``NAME.tmp`` and all moved into place only once every one is written (when one
    fails, e.g. on a full disk, the earlier files stay and no ``.tmp`` is left); return
    every file of the tournament's folder, games.csv first."""
    paths = {
        "summary": out_dir / "summary.csv",
        "h2h": out_dir / "head_to_head.csv",
        "md": out_dir / "summary.md",
        "points": out_dir / "points.png",
        "matrix": out_dir / "head_to_head.png",
    }
    tmps = {key: path.with_name(path.name + ".tmp") for key, path in paths.items()}
    try:  # every file whole or none replaced: each is written beside it first
        result.summary.to_csv(tmps["summary"], index=False)
        result.head_to_head.to_csv(tmps["h2h"], index=False)
        tmps["md"].write_text(summary_markdown(result, command))
        plot_points(result, tmps["points"])
        plot_head_to_head(result, tmps["matrix"])
        for key, path in paths.items():
            os.replace(tmps[key], path)
    finally:
        for tmp in tmps.values():
            tmp.unlink(missing_ok=True)
    return [out_dir / GAMES_FILE, *paths.values()]


def plot_points(result: TournamentResult, path: Path) -> None:
    """Mean points per deal of each agent with its 95 % CI as error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = result.summary.sort_values("mean_points", kind="stable")
    y = np.arange(len(summary))
    mean = summary["mean_points"].to_numpy()
    low = np.nan_to_num(mean - summary["ci_low"].to_numpy())
    high = np.nan_to_num(summary["ci_high"].to_numpy() - mean)
    fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.45 * len(summary)))
    ax.errorbar(mean, y, xerr=[low, high], fmt="o", capsize=4)
    ax.set_yticks(y, summary["agent"])
    unit = "match" if result.spec.options["episode"] == "match" else "deal"
    ax.set_xlabel(f"mean points per {unit} (95 % CI, paired by deal)")
    ax.set_title(f"{result.spec.game}: {result.spec.deals} deals x all seat rotations")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120, format="png")
    plt.close(fig)


def plot_head_to_head(result: TournamentResult, path: Path) -> None:
    """Heat map of the mean per-deal point difference, row agent minus column agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(result.spec.labels)
    matrix = (
        result.head_to_head.pivot(index="agent", columns="opponent", values="mean_diff")
        .reindex(index=labels, columns=labels)
        .to_numpy(dtype=np.float64)
        if len(result.head_to_head)
        else np.full((len(labels), len(labels)), np.nan)
    )
    limit = np.nanmax(np.abs(matrix)) if np.isfinite(matrix).any() else 1.0
    limit = limit if limit > 0 else 1.0
    size = 2.5 + 0.7 * len(labels)
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    image = ax.imshow(matrix, cmap="RdBu", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for i in range(len(labels)):
        for j in range(len(labels)):
            if np.isfinite(matrix[i, j]):
                color = "white" if abs(matrix[i, j]) > 0.6 * limit else "black"
                ax.text(j, i, f"{matrix[i, j]:+.2f}", ha="center", va="center", fontsize=8,
                        color=color)  # fmt: skip
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title("mean points per deal, agent minus opponent")
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=120, format="png")
    plt.close(fig)
