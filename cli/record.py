"""``cardrl record``: play a game with named agents and write it as an animated GIF.

    cardrl record abracadabra --variant three --agents heuristic,policy,random --seed 3
    cardrl record four_aces --num-players 4 --agents policy,greedy --match --out runs/fa.gif

One frame per decision (and the deal as dealt), drawn as ``render_mode="rgb_array"``
draws it (:mod:`envs.raster`): every hand face up with seat 0 at the bottom, or the table
as ``--seat N`` sees it. The table is chosen by the environment's own keyword: Abracadabra's
``--variant``, Four Aces' ``--num-players`` (or ``--players``). ``--agents`` names one agent
per seat (any name of ``cardrl agents``, or ``policy:PATH``); with fewer names than seats
the names repeat around the table. The GIF is written frame by frame (only what changed,
each frame with its own palette), so a long match needs no more memory than a deal;
``--max-frames`` stops the game early. A name ending in ``.mp4`` writes a video instead
when ``imageio`` and ``imageio-ffmpeg`` are installed. Every argument is checked before the
first deal; a problem is one ``cardrl record: error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.policy.checkpoint import TRUST_PICKLE_HELP
from envs import registry

__all__ = ["GifWriter", "Mp4Writer", "add_arguments", "record", "run", "table_options"]

DEFAULT_OUT = "runs/record"
#: how long the last frame stays before the GIF starts again, in milliseconds
FINAL_HOLD_MS = 3000
#: the most frames per second (GIF delays are whole hundredths of a second)
MAX_FPS = 50.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's flags."""
    parser.add_argument("game", choices=registry.GAMES)
    parser.add_argument("--variant", default=None,
                        help="Abracadabra: four, three, two_dummy, two (default four)")
    parser.add_argument("--num-players", "--players", dest="num_players", type=int,
                        default=None, help="Four Aces: 3, 4 or 5 players (default 4)")
    parser.add_argument("--agents", default="random",
                        help="comma-separated agents, one per seat from seat 0 (repeated "
                             "around the table when fewer): heuristic, greedy, random, "
                             "policy, policy:PATH or any name from 'cardrl agents' "
                             "(default random)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the deal and of the agents (default 0)")
    parser.add_argument("--match", action="store_true",
                        help="record a whole match instead of one deal / round")
    parser.add_argument("--seat", type=int, default=None,
                        help="show the table as this seat sees it (default: every card "
                             "face up)")
    parser.add_argument("--fps", type=float, default=2.0,
                        help=f"frames per second, up to {MAX_FPS:g} (default 2)")
    parser.add_argument("--max-frames", type=int, default=2000,
                        help="stop the game after this many frames (default 2000)")
    parser.add_argument("--out", default=None,
                        help=f"the .gif (or .mp4) to write (default {DEFAULT_OUT}/"
                             "<game>_<table>_<seed>.gif; folders are made)")
    parser.add_argument("--trust-pickle", action="store_true",
                        help=f"a policy agent may {TRUST_PICKLE_HELP}")


# =========================================================================================
# writers
# =========================================================================================
def _palette_image(image):
    """``image`` (RGB) with a palette of up to 256 colours (Pillow's fast octree: a table
    of about 1,400 colours, most of them the edges of text, is off by one or two levels
    on average, six times quicker than median cut)."""
    from PIL import Image

    return image.quantize(256, method=Image.Quantize.FASTOCTREE)


class GifWriter:
    """An animated GIF written as the frames come: each frame is the rectangle that changed
    since the previous one, with its own palette of up to 256 colours; a frame equal to
    the previous one lengthens it. Frames are uint8 [H, W, 3] of one size."""

    def __init__(self, path: str | Path):
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._previous: np.ndarray | None = None
        self._pending: tuple | None = None  # (P image, offset, duration ms) not yet written
        self.frames = 0  #: frames written or pending (repeats merged)

    def add(self, frame: np.ndarray, duration_ms: float) -> None:
        """Append ``frame``, shown for ``duration_ms`` milliseconds."""
        from PIL import Image

        frame = np.asarray(frame, dtype=np.uint8)
        if self._previous is None:
            box = (0, 0, frame.shape[1], frame.shape[0])
        else:
            if frame.shape != self._previous.shape:
                raise ValueError(f"frame of shape {list(frame.shape)} after frames of "
                                 f"{list(self._previous.shape)}: expected one size")
            changed = frame != self._previous
            rows = np.flatnonzero(changed.reshape(len(frame), -1).any(axis=1))
            if not rows.size:
                image, offset, duration = self._pending
                self._pending = (image, offset, duration + duration_ms)
                return
            band = changed[rows[0]:rows[-1] + 1]
            cols = np.flatnonzero(band.any(axis=0).any(axis=1))
            box = (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)
        patch = Image.fromarray(frame[box[1]:box[3], box[0]:box[2]])
        self._flush()
        if self._previous is None:
            self._write_header(frame)
        self._previous = frame
        self._pending = (_palette_image(patch), box[:2], duration_ms)
        self.frames += 1

    def _write_header(self, frame: np.ndarray) -> None:
        from PIL import GifImagePlugin, Image

        first = _palette_image(Image.fromarray(frame))
        header, _ = GifImagePlugin.getheader(first, info={"loop": 0})
        self._file.write(b"".join(header))

    def _flush(self, extra_ms: float = 0.0) -> None:
        """Write the pending frame (lengthened by ``extra_ms``)."""
        from PIL import GifImagePlugin

        if self._pending is None:
            return
        image, offset, duration = self._pending
        self._pending = None
        data = GifImagePlugin.getdata(image, offset, duration=round(duration + extra_ms),
                                      disposal=1, include_color_table=True)
        self._file.write(b"".join(data))

    def close(self, hold_ms: float = 0.0) -> None:
        """Write the last frame (held ``hold_ms`` longer) and the GIF's end."""
        if self._file.closed:
            return
        try:
            self._flush(hold_ms)
            if self._previous is not None:
                self._file.write(b";")  # the GIF trailer
        finally:
            self._file.close()


class Mp4Writer:
    """An MP4 video through imageio's ffmpeg writer (``imageio`` and ``imageio-ffmpeg``)."""

    def __init__(self, path: str | Path, fps: float):
        import imageio.v2 as imageio

        self._fps = fps
        self._writer = imageio.get_writer(str(path), fps=fps, macro_block_size=8)
        self._last: np.ndarray | None = None
        self.frames = 0

    def add(self, frame: np.ndarray, duration_ms: float) -> None:
        """Append ``frame`` (each frame lasts 1 / fps)."""
        self._last = np.asarray(frame, dtype=np.uint8)
        self._writer.append_data(self._last)
        self.frames += 1

    def close(self, hold_ms: float = 0.0) -> None:
        """Repeat the last frame for ``hold_ms`` and finish the file."""
        if self._last is not None:
            for _ in range(round(hold_ms / 1000 * self._fps)):
                self._writer.append_data(self._last)
        self._writer.close()


def check_out(out: Path) -> None:
    """ValueError unless ``out`` is a ``.gif``, or a ``.mp4`` with imageio-ffmpeg installed,
    and not a folder."""
    suffix = out.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ValueError(f"--out {out}: expected a file name ending in .gif (or .mp4)")
    if out.is_dir():
        raise ValueError(f"--out {out}: found a folder, expected a .gif file name")
    if suffix == ".mp4":
        import importlib.util

        missing = [m for m in ("imageio", "imageio_ffmpeg") if importlib.util.find_spec(m) is None]
        if missing:
            raise ValueError(f"--out {out}: writing MP4 needs imageio and imageio-ffmpeg "
                             f"({', '.join(missing)} not installed: pip install imageio "
                             "imageio-ffmpeg); expected a .gif name, or install them")


# =========================================================================================
# the game
# =========================================================================================
def table_options(game: str, variant: str | None, num_players: int | None) -> dict:
    """The game options of ``--variant`` / ``--num-players``: the flag of the game's table
    option (``registry.Game.table_option``); the other one is a ValueError."""
    table = registry.get(game).table_option
    given = {"variant": variant, "num_players": num_players}
    for option, value in given.items():
        if value is not None and option != table:
            flag = "--variant" if option == "variant" else "--num-players"
            expected = "--variant" if table == "variant" else "--num-players"
            raise ValueError(f"{flag} does not apply to {game}: its table is chosen by "
                             f"{expected}")
    return {} if given[table] is None else {table: given[table]}


def record(game: str, options: dict, agents: list[str], out: str | Path, seed: int = 0,
           match: bool = False, seat: int | None = None, fps: float = 2.0,
           max_frames: int = 2000, trust_pickle: bool = False,
           output: Callable[[str], None] = print) -> dict:
    """Play one deal / round (a match with ``match``) of ``game`` with config ``options``
    between ``agents`` (one name per seat, repeated around the table when fewer) and write
    it to ``out`` (GIF, or MP4 with imageio-ffmpeg). Returns ``{"frames", "steps",
    "stopped" (by max_frames), "result" (the last info["result"])}``."""
    from arena.play import make_opponent
    from envs.raster import engine_rgb

    out = Path(out)
    check_out(out)
    if not 0 < fps <= MAX_FPS:
        raise ValueError(f"--fps {fps:g} is not allowed: expected a number in (0, {MAX_FPS:g}]")
    if max_frames < 2:
        raise ValueError(f"--max-frames {max_frames} is not allowed: expected an integer >= 2")
    if seed < 0:
        raise ValueError(f"--seed {seed} is not allowed: expected an integer >= 0")
    if match:
        options = {**options, "episode": "match"}
    env = registry.make_env(game, render_mode="rgb_array", **options)
    engine = env.unwrapped.engine
    P = engine.num_players
    if seat is not None and not 0 <= seat < P:
        raise ValueError(f"--seat {seat} is out of range: this table has seats 0..{P - 1}")
    names = [name.strip() for name in agents if name.strip()]
    if not names or len(names) > P:
        raise ValueError(f"--agents {','.join(agents)!r}: expected 1 to {P} agent names "
                         f"(this table has {P} seats)")
    config = vars(engine.config)
    players = [make_opponent(names[s % len(names)], game, seed + s, trust_pickle, config)
               for s in range(P)]
    output("seats: " + ", ".join(f"player_{s} {names[s % len(names)]}" for s in range(P)))

    out.parent.mkdir(parents=True, exist_ok=True)
    writer = GifWriter(out) if out.suffix.lower() == ".gif" else Mp4Writer(out, fps)
    frame_ms = 1000.0 / fps
    view = {"seat": seat if seat is not None else 0, "face_up": seat is None}
    steps, stopped, info = 0, False, {}
    try:
        env.reset(seed=seed)
        writer.add(engine_rgb(engine, 0, **view), frame_ms)
        frames = 1
        while not engine.game_over[0]:
            if frames >= max_frames:
                stopped = True
                break
            observation, _, _, _, info = env.last()
            player = players[int(engine.current_player[0])]
            if player.needs_engine:  # a search agent (agents.base)
                action = int(player.act_engine(engine, np.zeros(1, np.intp))[0])
            else:
                action = player.act(observation["observation"], observation["action_mask"])
            env.step(action)
            steps += 1
            writer.add(engine_rgb(engine, 0, **view), frame_ms)
            frames += 1
        info = env.unwrapped.fixed_result() or {}
    finally:
        writer.close(FINAL_HOLD_MS)
    totals = info.get("totals")
    output(f"wrote {out}: {frames} frames, {steps} decisions"
           + (f", stopped at --max-frames {max_frames}" if stopped else "")
           + (f"; totals {totals}" if totals is not None else ""))
    return {"frames": frames, "steps": steps, "stopped": stopped, "result": info}


def run(args: argparse.Namespace) -> int:
    """Record the game; a bad argument is a ValueError with the whole message."""
    options = table_options(args.game, args.variant, args.num_players)
    registry.make_config(args.game, **options)  # a bad --variant / --num-players
    out = args.out
    if out is None:
        table = "_".join(str(v) for v in options.values()) or "default"
        out = f"{DEFAULT_OUT}/{args.game}_{table}_{args.seed}.gif"
    record(args.game, options, args.agents.split(","), out, seed=args.seed,
           match=args.match, seat=args.seat, fps=args.fps, max_frames=args.max_frames,
           trust_pickle=args.trust_pickle)
    return 0
