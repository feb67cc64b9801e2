"""``cardrl record``: a game played by named agents written as an animated GIF, frame by
frame; every bad argument is one error line before anything is played or written."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from PIL import Image, ImageSequence

from cli.main import main
from cli.record import FINAL_HOLD_MS, GifWriter
from envs import registry
from envs.raster import engine_rgb


def _decoded(path) -> tuple[list[np.ndarray], list[int]]:
    """Every frame of the GIF as RGB, and its duration in milliseconds."""
    frames, durations = [], []
    with Image.open(path) as gif:
        for frame in ImageSequence.Iterator(gif):
            frames.append(np.asarray(frame.convert("RGB")).copy())
            durations.append(frame.info.get("duration"))
    return frames, durations


def test_gif_writer_keeps_every_frame(tmp_path):
    """Frames written as changed rectangles with their own palettes decode to the frames
    (up to the palette), a repeated frame lengthens the one before, the last is held."""
    engine = registry.make_engine("abracadabra", 1, variant="two")
    engine.reset(seed=2)
    rng = np.random.default_rng(2)
    pictures = []
    for _ in range(5):
        pictures.append(engine_rgb(engine, 0, face_up=True))
        engine.step(np.array([rng.choice(np.flatnonzero(engine.legal_action_mask()[0]))]))
    path = tmp_path / "game.gif"
    writer = GifWriter(path)
    for k, picture in enumerate(pictures):
        writer.add(picture, 100)
        if k == 2:
            writer.add(picture, 100)  # the same picture again: one frame of 200 ms
    writer.close(hold_ms=1000)
    frames, durations = _decoded(path)
    assert len(frames) == len(pictures) == writer.frames
    assert durations == [100, 100, 200, 100, 1100]
    for frame, picture in zip(frames, pictures, strict=True):
        assert frame.shape == picture.shape
        off = np.abs(frame.astype(int) - picture.astype(int)).max(axis=2)
        assert off.mean() < 1.0 and (off > 40).mean() < 0.001


def test_record_a_round_with_named_agents(tmp_path, capsys):
    out = tmp_path / "folder" / "four_aces.gif"
    assert main(["record", "four_aces", "--num-players", "3", "--agents", "greedy,random",
                 "--seed", "1", "--fps", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "player_0 greedy, player_1 random, player_2 greedy" in printed
    frames, durations = _decoded(out)
    written = int(printed.split(": ")[-1].split(" frames")[0])
    assert 2 <= len(frames) <= written and frames[0].shape == (720, 1000, 3)
    assert durations[0] == 100 and durations[-1] >= 100 + FINAL_HOLD_MS
    assert "totals [" in printed


def test_record_stops_at_max_frames_and_shows_a_seat(tmp_path, capsys):
    out = tmp_path / "match.gif"
    assert main(["record", "abracadabra", "--variant", "two", "--match", "--seat", "1",
                 "--max-frames", "4", "--out", str(out)]) == 0
    assert "4 frames, 3 decisions, stopped at --max-frames 4" in capsys.readouterr().out
    assert len(_decoded(out)[0]) <= 4


MP4 = importlib.util.find_spec("imageio_ffmpeg") is not None


@pytest.mark.parametrize(("argv", "message"), [
    (["four_aces", "--variant", "four"], "--variant does not apply to four_aces: its table "
                                         "is chosen by --num-players"),
    (["abracadabra", "--num-players", "4"], "--num-players does not apply to abracadabra"),
    (["four_aces", "--num-players", "7"], "num_players=7"),
    (["abracadabra", "--variant", "two", "--agents", "random,random,random"],
     "expected 1 to 2 agent names"),
    (["abracadabra", "--agents", "nobody"], "unknown agent 'nobody'"),
    (["abracadabra", "--seat", "4"], "--seat 4 is out of range: this table has seats 0..3"),
    (["abracadabra", "--fps", "0"], "--fps 0 is not allowed"),
    (["abracadabra", "--out", "x.png"], "expected a file name ending in .gif"),
    pytest.param(["abracadabra", "--out", "x.mp4"], "writing MP4 needs imageio",
                 marks=pytest.mark.skipif(MP4, reason="imageio-ffmpeg is installed")),
])
def test_bad_arguments_are_one_line(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(["record", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("cardrl record: error: ") and "\n" not in err
    assert message in err
    assert list(tmp_path.iterdir()) == []  # nothing written
