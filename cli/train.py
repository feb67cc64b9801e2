"""``cardrl train --config configs/NAME.yaml``: self-play training of a masked policy.

The command-line overrides are merged into the config before it is validated
(:func:`training.config.load_config`); :func:`training.train.train` runs it. Nothing is
created before the config and everything the run reads (the evaluation's and the pool's
agents, a ``--distill-record``, the memory the network needs; with ``--resume``, the
run's resume file and the SHA-256 of the files it read) has been checked: a problem is
one ``ValueError`` line naming the file and the field, and the corrected command runs
into the same ``--out``.

Ctrl-C saves a resumable checkpoint and prints the command that continues the run;
``--resume`` prints what it continues from and refuses when there is nothing to resume
(docs/training-resume.md: what a resumed run repeats exactly).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from training.config import ALGOS, load_config, parse_setting

#: config field (dotted: a section's) -> the option that overrides it
OVERRIDES = {"total_steps": "total_steps", "max_minutes": "max_minutes", "algo": "algo",
             "seed": "seed", "distill.record": "distill_record"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True,
                        help="YAML config (configs/*.yaml, docs/training.md: the recipes)")
    parser.add_argument("--total-steps", type=int, default=None,
                        help="learner decisions to train on in all (overrides the config)")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop after this much training wall time (overrides the config)")
    parser.add_argument("--algo", choices=ALGOS, default=None, help="override the config's algo")
    parser.add_argument("--seed", type=int, default=None, help="override the config's seed")
    parser.add_argument("--distill-record", default=None, metavar="TEACHER_NPZ",
                        help="the teacher.npz an earlier run of this config wrote: the "
                             "distill stage fits to it instead of playing the teacher again "
                             "(checked: the config's episodes and observation size; its play "
                             "time counts as training time)")
    parser.add_argument("--out", default=None,
                        help="run folder (default runs/<config name>_s<seed>)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out from its last checkpoint (the config "
                             "must be the run's, only --total-steps and --max-minutes may "
                             "change, and the files it reads must hold what they held; "
                             "docs/training-resume.md)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        dest="settings",
                        help="set any config field, dotted at any depth (repeatable): "
                             "--set ppo.learning_rate=1e-4 --set options.variant=three; "
                             "the value is read as YAML reads it and checked with the file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def resume_command(args: argparse.Namespace, run_dir: Path) -> str:
    """The command that continues the run ``args`` started in ``run_dir``."""
    parts = ["cardrl", "train", "--config", str(args.config)]
    for option in OVERRIDES.values():
        value = getattr(args, option)
        if value is not None:
            parts += [f"--{option.replace('_', '-')}", str(value)]
    for setting in getattr(args, "settings", []):
        parts += ["--set", setting]
    parts += ["--out", str(run_dir), "--resume"]
    return " ".join(shlex.quote(part) for part in parts)


def run(args: argparse.Namespace) -> int:
    from training.evaluate import eval_line
    from training.resume import Interrupted
    from training.train import train

    settings = dict(parse_setting(setting) for setting in args.settings)
    cfg = load_config(args.config, {field: getattr(args, option)
                                    for field, option in OVERRIDES.items()}, settings)
    run_dir = Path(args.out or f"runs/{Path(args.config).stem}_s{cfg.seed}")
    try:
        summary = train(cfg, run_dir, resume=args.resume, progress=not args.no_progress)
    except Interrupted as stop:
        print(f"\ninterrupted: saved a resumable checkpoint after {stop.steps:,} learner "
              f"decisions ({stop.path}, policy.pt); resume with:\n  "
              f"{resume_command(args, run_dir)}", file=sys.stderr)
        return 130
    print(f"trained {summary['steps']:,} learner decisions in {summary['seconds']:.0f} s "
          f"({cfg.algo}); {eval_line(summary['eval'])}")
    files = ("policy.pt, exit.csv, exit_curve.png, generations/" if cfg.algo == "exit" else
             "policy.pt, eval.csv, learning_curve.png, tb/")
    print(f"run folder: {run_dir}  ({files})")
    return 0
