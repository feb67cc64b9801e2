"""The report of ``cardrl bench``: its records, the Markdown table with ratios to
OpenSpiel and the batch rows' share of the copy bandwidth, the targets, the training
split, the memory table, the plot and the JSON figures."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.bandwidth import achieved_bandwidth
from bench.compile_cost import compile_section
from bench.loops import REFERENCE_SHARE
from bench.memory import MEMORY_STEPS
from bench.openspiel import OPENSPIEL_GAME, OPENSPIEL_MODES
from envs import registry

BARE, OBS, OBSERVER = OPENSPIEL_MODES


class _Targets(Mapping):
    """(game, observation dtype) -> target: every game's ``bench_targets``."""

    def _targets(self) -> dict[tuple[str, str], float]:
        return {(game, dtype): target for game in registry.GAMES
                for dtype, target in registry.get(game).bench_targets.items()}

    def __getitem__(self, key: tuple[str, str]) -> float:
        return self._targets()[key]

    def __iter__(self):
        return iter(self._targets())

    def __len__(self) -> int:
        return len(self._targets())


#: the throughput targets: batch engine at batch >= TARGET_BATCH vs
#: OpenSpiel bare steps/s, per game and observation dtype
#: (each game's ``bench_targets``)
TARGETS = _Targets()
TARGET_BATCH = 1024
#: AEC ``env()`` vs OpenSpiel's ``information_state_tensor()`` loop
AEC_TARGET = 3.0
#: the single-game step without PettingZoo (batch engine, batch 1, float32) vs
#: OpenSpiel's preallocated observer
SINGLE_GAME_TARGET = 0.5


@dataclass
class Record:
    """One row of the benchmark (the ``--json`` record, plus the spread of the repeats)."""

    engine: str
    game: str
    variant: str
    batch: int
    steps_per_s: float
    games_per_s: float
    #: the observation produced: "float32" or "int8" for ours, "none" (OpenSpiel bare),
    #: "list" (information_state_tensor) or "float32" (OpenSpiel's observer)
    obs: str = "float32"
    runs_steps_per_s: list[float] = field(default_factory=list)
    #: batch rows: bytes written per agent-step (:func:`bench.bandwidth.step_bytes`)
    bytes_per_step: float | None = None
    #: ppo rows: the time split per iteration (:meth:`bench.entry_points.PPOLoop.detail`);
    #: batch rows at the smallest and largest batch: ns per agent-step of each call
    #: (:func:`bench.loops.batch_time_split`)
    detail: dict = field(default_factory=dict)
    #: OpenSpiel mode -> the median over the timed runs of this row's steps/s over that
    #: mode's steps/s in a run just before (:func:`bench.loops.measure`); empty without
    #: OpenSpiel
    paired: dict = field(default_factory=dict)

    def ratio(self, mode: str, rates: dict[str, float]) -> float | None:
        """This row's ratio to OpenSpiel's ``mode``: the paired one, or else the ratio of
        the medians (``rates``: steps/s by mode); None if OpenSpiel was not measured."""
        if mode in self.paired:
            return self.paired[mode]
        return self.steps_per_s / rates[mode] if rates.get(mode) else None

    def public(self) -> dict:
        """The record as written to the JSON file (without the per-run rates)."""
        d = asdict(self)
        del d["runs_steps_per_s"]
        return d


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def _spread(r: Record) -> str:
    """(max - min) / median of the timed runs' steps/s."""
    runs = r.runs_steps_per_s
    return f"±{50 * (max(runs) - min(runs)) / r.steps_per_s:.0f}%" if len(runs) > 1 else "—"


def _ratio(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.2f}×"


def _bandwidth(r: Record, copy_bytes_per_s: float | None) -> str:
    """Achieved GB/s of a batch row and its share of the copy bandwidth."""
    if r.bytes_per_step is None:
        return "—"
    achieved = achieved_bandwidth(r.bytes_per_step, r.steps_per_s)
    share = f" ({100 * achieved / copy_bytes_per_s:.1f}%)" if copy_bytes_per_s else ""
    return f"{achieved / 1e9:.2f}{share}"


def _gflops(detail: dict, key: str) -> str:
    """``detail[key]`` FLOP/s as GFLOP/s, or a dash when the record lacks it."""
    value = detail.get(key)
    return "—" if not value else f"{value / 1e9:.1f}"


def _ceiling(detail: dict) -> str:
    """An iteration's speed-up with its update at the matmul's rate (see the training
    section), or "—" without both rates."""
    update, matmul = detail.get("update_flops"), detail.get("matmul_flops")
    if not update or not matmul:
        return "—"
    total, update_s = detail["total_s"], detail["update_s"]
    return f"{total / (total - update_s + update_s * update / matmul):.2f}×"


def _profile(detail: dict) -> str:
    """The update's profile shares as "matmul / activation / optimizer / other" percent,
    or a dash when the record lacks it."""
    shares = detail.get("update_profile")
    if not shares:
        return "—"
    return " / ".join(f"{100 * shares[k]:.0f}%"
                      for k in ("matmul", "activation", "optimizer", "other"))


def _matmul_bound(detail: dict) -> str:
    """An iteration's speed-up with its update reduced to its matrix multiplies (the rest
    of the update free), or "—" without the profile."""
    shares = detail.get("update_profile")
    if not shares:
        return "—"
    total, update_s = detail["total_s"], detail["update_s"]
    return f"{total / (total - update_s * (1.0 - shares['matmul'])):.2f}×"


def _training_split(records: list[Record]) -> list[str]:
    """The section on the ppo rows: decisions/s and where an iteration's time goes."""
    rows = [r for r in records if r.engine == "ppo" and r.detail]
    if not rows:
        return []
    lines = [
        "",
        "## Training throughput (batch PPO)",
        "",
        "Learner decisions/s of `training.ppo_batch` iterations of each config (rollout of "
        "one episode in every game, advantages, PPO update; no evaluation, logging or "
        "checkpoints), and the time of one iteration split into: *env* (engine steps, "
        "observations, masks, the opponents' and delegate's decisions, the rollout buffer), "
        "*features* (`net.encode`: input features and symmetry), *forward* (the learner's "
        "`sample_actions`), *update* (advantages and `ppo_update`). Averages over the timed "
        "runs; on the CPU clock every torch thread counts. *Update GFLOP/s*: the update's "
        "model arithmetic (6 FLOPs per linear-layer weight and sample passed, 4 for the "
        "layers reading the network's input, whose gradient is not needed) over its time; "
        "*matmul GFLOP/s*: one `torch.mm` of a minibatch through the first layer on the same "
        "threads, what the CPU's matrix multiply does (`bench/entry_points.py`). *Update "
        "profile*: the shares of the update's time (torch's profiler over one more update) "
        "in matrix multiplies, the activation and its gradient, the optimizer, and the rest. "
        "*Matmul bound*: how much faster an iteration would be if the update were its "
        "matrix multiplies alone, at the rate they run (the rest of the update free): "
        "s/iteration over (s/iteration − update × (1 − matmul share)). *Ceiling*: if, "
        "beyond that, its whole arithmetic ran at the matmul's GFLOP/s: s/iteration over "
        "(s/iteration − update + update × update GFLOP/s / matmul GFLOP/s). Both are "
        "bounds with the same arithmetic per decision; a faster training beyond them needs "
        "less of it.",
        "",
        "| config | games | torch threads | learner decisions/s | decisions/iteration "
        "| s/iteration | env | features | forward | update | update GFLOP/s "
        "| matmul GFLOP/s | update profile: matmul / activation / optimizer / other "
        "| matmul bound | ceiling |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        d = r.detail
        total = d["total_s"] or 1.0

        def part(key: str, d=d, total=total) -> str:
            return f"{d[key]:.2f} s ({100 * d[key] / total:.0f}%)"

        lines.append(
            f"| {d['config']} | {d['num_games']} | {d['torch_threads']} "
            f"| {_fmt(r.steps_per_s)} "
            f"| {_fmt(d['decisions_per_iteration'])} | {d['total_s']:.2f} "
            f"| {part('env_s')} | {part('features_s')} | {part('forward_s')} "
            f"| {part('update_s')} | {_gflops(d, 'update_flops')} "
            f"| {_gflops(d, 'matmul_flops')} | {_profile(d)} | {_matmul_bound(d)} "
            f"| {_ceiling(d)} |"
        )
    return lines


def _batch_split(records: list[Record], os_rate: dict[str, float],
                 copy_bytes_per_s: float | None) -> list[str]:
    """The section on where the batch rows' time goes, against the time per agent-step
    the goals allow (from each row's ratios to OpenSpiel, :meth:`Record.ratio`; ``os_rate``:
    OpenSpiel's steps/s by mode, empty if not run) and the copy bandwidth (bytes/s; None:
    not measured)."""
    rows = [r for r in records if r.engine == "batch" and r.detail]
    if not rows:
        return []
    parts = ("observe", "mask", "sample", "step", "reset", "other")
    lines = [
        "",
        "## Where a batch step's time goes",
        "",
        "The batch rows at the smallest and largest batch size, timed again call by call "
        "(`bench.loops.batch_time_split`: the median of `--repeats` runs of `--seconds`, "
        "on the wall clock whatever `--clock`, whose CPU clock costs a microsecond a "
        "read): nanoseconds per "
        "agent-step of `observe(out=...)`, `legal_action_mask()`, the sampler "
        "(`sample_uniform_legal`), `step`, the in-place `reset` of finished games and the "
        "rest (the loop's bookkeeping, the clock reads); *the row's time*: 1 / the row's "
        "agent-steps/s in the table above, for comparison. *Goal budget*: the time per "
        f"agent-step the goal allows — at batch ≥ {TARGET_BATCH} 1 / (target × OpenSpiel "
        f"bare steps/s), at batch 1 1 / ({SINGLE_GAME_TARGET:g} × OpenSpiel observer "
        "steps/s) for float32 (the single-game goal), OpenSpiel's steps/s being those "
        "paired with the row (the row's steps/s over its ratio). *Write GB/s*: the row's bytes per "
        "agent-step (observation and mask) over the time of `observe` and the mask, with "
        "its share of the copy bandwidth: how close the writes run to the memory's limit. "
        "*Observe floor*: numpy's `fill(0)` of the same observation buffer, per game: the "
        "bytes of an observation written with no encoding at all; *total at the floor*: "
        "the total with `observe` at its floor. Where that is above the goal budget, no "
        "observation encoder can meet the goal: the other calls would have to get faster.",
        "",
        "| game | variant | batch | obs | " + " | ".join(parts)
        + " | total | the row's time | goal budget | write GB/s | observe floor "
        "| total at the floor |",
        "|---|---|---:|---|" + "---:|" * (len(parts) + 6),
    ]
    for r in rows:
        d = r.detail
        total = sum(d[f"{p}_ns"] for p in parts)
        budget = "—"
        bare, observer = r.ratio(BARE, os_rate), r.ratio(OBSERVER, os_rate)
        if r.batch >= TARGET_BATCH and bare:
            budget = f"{1e9 * bare / (TARGETS[r.game, r.obs] * r.steps_per_s):,.0f}"
        elif r.batch == 1 and r.obs == "float32" and observer:
            budget = f"{1e9 * observer / (SINGLE_GAME_TARGET * r.steps_per_s):,.0f}"
        writing = d["observe_ns"] + d["mask_ns"]
        rate = "—"
        if r.bytes_per_step and writing > 0:
            rate = f"{r.bytes_per_step / writing:.2f}"  # bytes per ns = GB/s
            if copy_bytes_per_s:
                rate += f" ({100e9 * r.bytes_per_step / writing / copy_bytes_per_s:.0f}%)"
        floor_total = total - d["observe_ns"] + d["fill_ns"]
        lines.append(f"| {r.game} | {r.variant} | {r.batch} | {r.obs} | "
                     + " | ".join(_fmt(d[f"{p}_ns"]) for p in parts)
                     + f" | {_fmt(total)} | {_fmt(1e9 / r.steps_per_s)} | {budget} | {rate} "
                     f"| {_fmt(d['fill_ns'])} | {_fmt(floor_total)} |")
    return lines


def render_markdown(
    records: list[Record],
    memory: list[dict],
    info: dict,
    command: str,
    notes: list[str],
    plot_name: str | None,
) -> str:
    """The Markdown report: method, command, clock and machine (``info``: the keys of
    :func:`records.provenance.machine_info` plus ``date``, ``clock`` and optionally
    ``loadavg_before`` / ``loadavg_after``), ``notes``, the table of ``records`` with
    ratios to the OpenSpiel rows and, for batch rows, the achieved bandwidth against
    ``info["copy_bandwidth"]`` (:func:`bench.bandwidth.copy_bandwidth`, optional), the
    targets, the training split of the ppo rows, the ``memory`` table and the plot link."""
    os_rate = {r.engine: r.steps_per_s for r in records if r.engine in OPENSPIEL_MODES}
    bare, obs, observer = (os_rate.get(m) for m in (BARE, OBS, OBSERVER))
    lines = [
        "# Throughput benchmark",
        "",
        "Uniformly random legal play; every step of ours produces the observation of the "
        "player(s) to act and the legal-action mask. Agent-steps/s count player decisions; "
        "deals/s count complete deals (Abracadabra) or rounds (Four Aces), as the median "
        "steps/s times the deals per step over all the row's runs. Median of the "
        "timed runs after a warm-up, one process (spread: half the range of the runs "
        "over the median). The batch rows write each step's observations into one "
        "preallocated buffer (`observe(out=...)`), exactly as the OpenSpiel observer "
        "row does with `set_from`: float32 (`obs` float32), or the int8 observation "
        "(`obs` int8: the same entries as integers, `int8 * engine.observation_scale` is "
        "the float32 observation; a quarter of the bytes); actions are drawn by "
        "`envs.core.sample_uniform_legal` (exactly uniform over the mask). The AEC rows "
        "return a fresh observation dict per `last()`, as PettingZoo expects. Ratios are "
        "our steps/s over OpenSpiel "
        f"`{OPENSPIEL_GAME}` measured in the same run: *bare* (apply_action only), *obs* "
        "(`information_state_tensor()` at every decision — oh_hell implements no "
        "`observation_tensor()`), *observer* (preallocated `make_observation(...).set_from`). "
        "They are paired: each timed run of a row follows a run of each OpenSpiel loop "
        f"({REFERENCE_SHARE:g} × `--seconds`), and a ratio is the median over "
        "the row's timed runs of its steps/s over OpenSpiel's just before, so that the "
        "machine's drift between rows cancels (the OpenSpiel rows' own steps/s are the "
        "medians of their timed runs, as every row's).",
        "",
        f"Command: `{command}`",
        "",
        "Clock: " + ("this process's CPU time (`--clock cpu`)." if info.get("clock") == "cpu"
                     else "wall time (elapsed)."),
        f"Machine: {info['platform']}; CPU {info['cpu']}; {info['cores']} cores "
        f"({info['usable_cores']} usable). Date: {info['date']}. Python {info['python']}, "
        f"numpy {info['numpy']}, pettingzoo {info['pettingzoo']}, "
        f"open_spiel {info['open_spiel']}.",
    ]
    copy = info.get("copy_bandwidth")
    if copy:
        lines.append(
            f"Copy bandwidth: {copy['bytes_per_s'] / 1e9:.2f} GB/s (`np.copyto` of a "
            f"{copy['bytes'] / 2**20:g} MiB array into a preallocated one, median of "
            f"{copy['repeats']} copies; bytes read + bytes written per second, as STREAM's "
            "Copy counts). A batch row's bytes/step are what it writes per agent-step: one "
            "observation row (observation size × the dtype's bytes) and one bool mask row "
            "(number of actions × 1 byte); its GB/s are bytes/step × agent-steps/s, with "
            "their share of the copy bandwidth in brackets. The engines' state updates, "
            "temporaries and reads are not counted."
        )
    if "loadavg_before" in info:
        before = ", ".join(f"{x:.2f}" for x in info["loadavg_before"])
        after = ", ".join(f"{x:.2f}" for x in info["loadavg_after"])
        lines.append(f"Load average (1, 5, 15 min) before the run: {before}; after: {after}.")
    lines += [""] + [f"Note: {n}" for n in notes] + ([""] if notes else [])
    lines += [
        "| engine | game | variant | batch | obs | agent-steps/s | deals/s "
        "| spread | × OS bare | × OS obs | × OS observer | bytes/step "
        "| GB/s (share of copy bandwidth) |",
        "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    copy_bytes_per_s = copy["bytes_per_s"] if copy else None
    for r in records:
        lines.append(
            f"| {r.engine} | {r.game} | {r.variant} | {r.batch} | {r.obs} "
            f"| {_fmt(r.steps_per_s)} "
            f"| {_fmt(r.games_per_s)} | {_spread(r)} | {_ratio(r.ratio(BARE, os_rate))} "
            f"| {_ratio(r.ratio(OBS, os_rate))} | {_ratio(r.ratio(OBSERVER, os_rate))} "
            f"| {'—' if r.bytes_per_step is None else f'{r.bytes_per_step:,.0f}'} "
            f"| {_bandwidth(r, copy_bytes_per_s)} |"
        )
    lines += ["", "## Targets", ""]
    if bare:
        games = {game for game, _ in TARGETS}
        for game in dict.fromkeys(r.game for r in records if r.game in games):
            rows = [
                r for r in records
                if r.engine == "batch" and r.game == game and r.batch >= TARGET_BATCH
            ]
            if not rows:
                lines.append(f"- {game}: no batch size ≥ {TARGET_BATCH} was measured.")
            for variant, dtype in dict.fromkeys((r.variant, r.obs) for r in rows):
                best = max((r for r in rows if (r.variant, r.obs) == (variant, dtype)),
                           key=lambda r: r.ratio(BARE, os_rate))
                ratio = best.ratio(BARE, os_rate)
                target = TARGETS[game, dtype]
                verdict = "met" if ratio >= target else "NOT met"
                lines.append(
                    f"- {game} `{variant}` batch engine, {dtype} observations, best at batch "
                    f"≥ {TARGET_BATCH}: {ratio:.1f}× OpenSpiel bare (batch {best.batch}); "
                    f"target ≥ {target:g}×: {verdict}."
                )
        for r in records:
            if r.engine == "aec" and obs:
                ratio = r.ratio(OBS, os_rate)
                verdict = "met" if ratio >= AEC_TARGET else "NOT met"
                lines.append(
                    f"- {r.game} `{r.variant}` AEC: {ratio:.2f}× OpenSpiel obs "
                    f"(target ≥ {AEC_TARGET:g}×: {verdict}), "
                    f"{_ratio(r.ratio(OBSERVER, os_rate))} its preallocated observer."
                )
        for r in records:
            if r.engine == "batch" and r.batch == 1 and r.obs == "float32" and observer:
                ratio = r.ratio(OBSERVER, os_rate)
                verdict = "met" if ratio >= SINGLE_GAME_TARGET else "NOT met"
                lines.append(
                    f"- {r.game} `{r.variant}` single-game step (batch engine, batch 1, "
                    f"float32): {ratio:.2f}× OpenSpiel's preallocated observer "
                    f"(target ≥ {SINGLE_GAME_TARGET:g}×: {verdict})."
                )
    else:
        lines.append("- OpenSpiel was not measured in this run, so no ratios.")
    lines += _batch_split(records, os_rate, copy_bytes_per_s)
    lines += _training_split(records)
    if "compile_cost" in info:
        lines += compile_section(info["compile_cost"])
    if memory:
        lines += [
            "",
            f"## Memory (batch of {memory[0]['batch']} games, {MEMORY_STEPS} steps of play "
            "with observations and masks)",
            "",
            "State bytes per game: the engine's numpy state arrays / batch size. Peak RSS "
            "growth: peak resident set (`VmHWM`) after play minus before the engine was "
            "built (fresh subprocess; includes temporaries). Peak traced: `tracemalloc` peak over "
            "construction, reset and play.",
            "",
            "| game | variant | state bytes/game | peak RSS growth | peak traced |",
            "|---|---|---:|---:|---:|",
        ]
        for m in memory:
            lines.append(
                f"| {m['game']} | {m['variant']} | {m['state_bytes_per_game']:,.0f} "
                f"| {m['peak_rss_delta_bytes'] / 2**20:,.1f} MiB "
                f"| {m['peak_traced_bytes'] / 2**20:,.1f} MiB |"
            )
    if plot_name:
        lines += ["", f"![agent-steps/s against batch size]({plot_name})"]
    return "\n".join(lines) + "\n"


def plot(records: list[Record], path: Path) -> None:
    """Agent-steps/s against batch size, log-log, OpenSpiel's rows as horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5))
    styles = {"batch": ("o", "-"), "vecenv": ("s", "--"), "aec": ("*", ""), "seat": ("P", "")}
    for engine, (marker, line) in styles.items():
        keys = dict.fromkeys((r.game, r.variant, r.obs) for r in records if r.engine == engine)
        for game, variant, obs in keys:
            rows = sorted(
                (r for r in records
                 if (r.engine, r.game, r.variant, r.obs) == (engine, game, variant, obs)),
                key=lambda r: r.batch,
            )
            int8 = obs == "int8"
            ax.plot(
                [r.batch for r in rows],
                [r.steps_per_s for r in rows],
                marker=marker,
                linestyle=":" if int8 and line else line or "none",
                markersize=12 if engine in ("aec", "seat") else 6,
                label=f"{engine}: {game} {variant}" + (" (int8 obs)" if int8 else ""),
            )
    colours = {"openspiel_bare": "black", "openspiel_obs": "grey", "openspiel_observer": "brown"}
    for r in records:
        if r.engine in OPENSPIEL_MODES:
            ax.axhline(r.steps_per_s, color=colours[r.engine], linestyle=":", label=r.engine)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size (games per engine)")
    ax.set_ylabel("agent-steps per second")
    ax.set_title("Random play with observations and masks (OpenSpiel oh_hell as lines)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_report(
    records: list[Record],
    memory: list[dict],
    info: dict,
    command: str,
    notes: list[str],
    out: Path,
    json_path: Path | None = None,
) -> None:
    """Write the Markdown report to ``out``, the plot beside it (``out`` with suffix
    ``.png``) and, with ``json_path``, the records as a JSON list."""
    out.parent.mkdir(parents=True, exist_ok=True)
    png = out.with_suffix(".png")
    plot(records, png)
    out.write_text(render_markdown(records, memory, info, command, notes, png.name))
    print(f"wrote {out} and {png}")
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps([r.public() for r in records], indent=1) + "\n")
        print(f"wrote {json_path}")
