"""The fuzz report: counts per configuration and every violation, as Markdown."""

from __future__ import annotations

from collections.abc import Sequence

from envs import registry
from envs.fuzz.runner import CaseResult


def summary(results: Sequence[CaseResult]) -> dict[str, dict[str, int]]:
    """Per game: cases, batch steps, agent steps, deals (rounds), episodes, probes and
    violations, summed over its cases."""
    out: dict[str, dict[str, int]] = {}
    for r in results:
        row = out.setdefault(r.case.game, dict(cases=0, steps=0, agent_steps=0, deals=0,
                                               episodes=0, probes=0, violations=0))
        row["cases"] += 1
        row["steps"] += r.steps
        row["agent_steps"] += r.agent_steps
        row["deals"] += r.deals
        row["episodes"] += r.episodes
        row["probes"] += r.probes
        row["violations"] += len(r.violations)
    return out


def markdown(results: Sequence[CaseResult], header: Sequence[str]) -> str:
    """The report: ``header`` lines (command, machine, date), what was checked, the totals
    per game, one row per case, and every violation with how to reproduce it."""
    lines = ["# Engine fuzz: random play with the rules' invariants after every step", ""]
    lines += [*header, ""]
    lines += [
        "Every step of every game: the legal-action mask equals the rules' legal actions "
        "and the seat to act agrees, cards are conserved (and equal an independent record "
        "of the deal and the actions played). Every finished deal (Abracadabra): points "
        "recomputed by S1–S3 from that record, stakes C2/D2, pot shares and carry S4/M2, "
        "chips of a deal summing to the pot in minus the pot out and to zero over an "
        "episode, totals the sum of deal points, episode end M1/M3, rewards. Every finished "
        "round (Four Aces): points equal to an independent reading of the rules (every "
        "split tried) of each player's hand + table (K2/K3) or the four-aces win (H4/K1), "
        "totals, match end K4, rewards. Every 20 "
        "steps a forbidden or out-of-range action in one game must raise ValueError and "
        "leave every state array unchanged (*probes*); every 16 steps the observation must "
        "be finite and within the declared bounds. Finished games restart in place with "
        "`reset(games=…, game_seeds=…)`, as a bool mask and as shuffled integer indices; "
        "5% of the live games sit each step out (`active`).",
        "",
        "| game | cases | batch steps | agent steps | deals/rounds | episodes | probes "
        "| violations |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for game, row in summary(results).items():
        lines.append(f"| {game} | {row['cases']} | {row['steps']:,} | {row['agent_steps']:,} "
                     f"| {row['deals']:,} {registry.get(game).deal_word}s "
                     f"| {row['episodes']:,} | {row['probes']:,} | {row['violations']} |")
    lines += ["", "## Per configuration", "",
              "| case | seed | batch steps | agent steps | deals/rounds | episodes | probes "
              "| seconds | violations |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r.case.label} | {r.seed} | {r.steps:,} | {r.agent_steps:,} "
                     f"| {r.deals:,} | {r.episodes:,} | {r.probes:,} | {r.seconds:.1f} "
                     f"| {len(r.violations)} |")
    violations = [v for r in results for v in r.violations]
    lines += ["", "## Violations", ""]
    if not violations:
        lines.append("None.")
    for v in violations:
        lines.append(f"- `{v.case}`, batch {v.batch}, case seed {v.seed}, after step "
                     f"{v.step}, game {v.game}: {v.message}")
    lines += ["", "A case reruns alone, with the same seed, as "
              "`cardrl fuzz --only \"<case>\" --seed <run seed> --batch <batch> ...` (the "
              "case seed is derived from the run's seed and the case's label)."]
    return "\n".join(lines) + "\n"
