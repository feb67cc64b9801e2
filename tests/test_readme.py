"""The README's examples run as written and print what the README shows.

A block of README.md that this test runs is announced by an HTML comment on the line just
before it (the block is the fenced code that follows, or else the paragraph up to the next
blank line):

``<!-- readme-test: python -->``
    the fenced Python code runs, in a fresh namespace, from the repository root.
``<!-- readme-test: shell [tmp=PATH] -->``
    each ``$ cardrl ...`` line (``\\`` continues it) runs in this process
    (:func:`cli.main.main`, stdout and stderr together); the lines after it, up to the next
    ``$``, are what it prints. A line ``...`` stands for any lines, none included; a
    command ending in ``; echo $?`` also prints its exit status. ``PATH`` (the folder the
    commands write) becomes a temporary folder, and is written back into the output.
``<!-- readme-test: play [otherwise=MOVE] -->``
    a terminal game: ``$ cardrl play ...`` and the transcript, as a terminal shows it
    (each move typed after its prompt). The player's answers are read off the transcript:
    each prompt is answered by the next transcript line that starts with that prompt;
    when none is left, by ``MOVE`` (or by the end of the input, which leaves the game).
``<!-- readme-test: quote FILE -->``
    every line of the block (a table, a command) is in ``FILE``, the committed result it
    was copied from; a ``cardrl tournament`` or ``cardrl bidbench`` command in it also runs,
    with 20 deals into a temporary folder, and must name the same agents.

Only stable lines are compared: timings and dates are written as ``...`` in the README.
``python tests/test_readme.py`` prints what every shell and play block prints now, to
regenerate the README's examples from the commands as written.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: the README and the pages its details moved to: their examples are run the same way
DOCUMENTS = (README, *(ROOT / "docs" / f"{name}.md" for name in (
    "games", "agents", "integrations", "tournaments", "training", "play", "speed",
    "results")))
MARK = re.compile(r"<!-- readme-test: (\w+)((?: [^ ]+)*) -->")
KINDS = ("python", "shell", "play", "quote")
ANY = "..."


@dataclass
class Block:
    """A marked block of the README: its kind, options and lines."""

    kind: str
    line: int  #: 1-based line of the marker in its file
    file: str = "README.md"  #: the file, relative to the repository
    options: dict[str, str] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.file}:{self.line}:{self.kind}"


def read_blocks(text: str, file: str = "README.md") -> list[Block]:
    """Every marked block of ``text``, the contents of ``file`` (see the module
    docstring)."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        match = MARK.fullmatch(line.strip())
        if not match:
            continue
        block = Block(match.group(1), i + 1, file)
        for word in match.group(2).split():
            key, eq, value = word.partition("=")
            if eq:
                block.options[key] = value
            else:
                block.words.append(word)
        body = lines[i + 1 :]
        if body and body[0].startswith("```"):
            end = next(k for k in range(1, len(body)) if body[k].startswith("```"))
            block.lines = body[1:end]
        else:
            end = next((k for k, x in enumerate(body) if not x.strip()), len(body))
            block.lines = body[:end]
        found.append(block)
    return found


BLOCKS = [block for path in DOCUMENTS for block in read_blocks(
    path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]


def _of_kind(*kinds: str) -> list:
    return [pytest.param(b, id=b.name) for b in BLOCKS if b.kind in kinds]


# =========================================================================================
# comparing what a command prints with what the README shows
# =========================================================================================
def lines_match(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` line by line (trailing blanks ignored), where a
    line ``...`` of ``expected`` stands for any number of lines."""
    expected = [x.rstrip() for x in expected]
    actual = [x.rstrip() for x in actual]
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if i == len(expected):
                memo[i, j] = j == len(actual)
            elif expected[i] == ANY:
                memo[i, j] = match(i + 1, j) or (j < len(actual) and match(i, j + 1))
            else:
                memo[i, j] = j < len(actual) and expected[i] == actual[j] and match(i + 1, j + 1)
        return memo[i, j]

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * (len(expected) + len(actual))))
    return match(0, 0)


def transcript(block: Block) -> list[tuple[str, list[str]]]:
    """The ``$`` commands of a shell or play block, each with the lines shown after it."""
    steps: list[tuple[str, list[str]]] = []
    pending = ""
    for line in block.lines:
        if pending or line.startswith("$ "):
            text = pending + (line[2:] if not pending else " " + line.strip())
            pending = text[:-1].rstrip() if text.endswith("\\") else ""
            if not pending:
                steps.append((text, []))
        elif steps:
            steps[-1][1].append(line)
    assert steps, f"{block.name}: no '$ ' command in the block"
    return steps


class _Terminal(io.StringIO):
    """stdin of ``cardrl play``: answers each prompt (the last unfinished line written to
    ``screen``) from the README's transcript, echoing the answer as a terminal would."""

    def __init__(self, screen: io.StringIO, shown: list[str], otherwise: str | None):
        super().__init__()
        self.screen, self.shown, self.otherwise = screen, list(shown), otherwise
        self.answers: list[str] = []

    def readline(self, *args) -> str:
        prompt = self.screen.getvalue().rsplit("\n", 1)[-1]
        for k, line in enumerate(self.shown):
            if prompt and line.startswith(prompt):
                answer = line[len(prompt) :]
                del self.shown[: k + 1]
                break
        else:
            if self.otherwise is None:
                return ""  # end of input: the game is left
            answer = self.otherwise
        self.answers.append(answer)
        self.screen.write(answer + "\n")
        return answer + "\n"


def run_cardrl(command: str, stdin: io.StringIO | None = None,
               screen: io.StringIO | None = None) -> tuple[int, str]:
    """Run ``cardrl ...`` in this process; returns its exit status and all it printed."""
    from cli.main import main

    argv = shlex.split(command)
    assert argv[0] == "cardrl", f"not a cardrl command: {command}"
    screen = screen or io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = stdin or io.StringIO()
    try:
        with redirect_stdout(screen), redirect_stderr(screen):
            try:
                status = main(argv[1:])
            except SystemExit as stop:  # argparse
                status = stop.code if isinstance(stop.code, int) else 2
    finally:
        sys.stdin = saved_stdin
    return status, screen.getvalue()


def run_shell_block(block: Block, tmp: Path) -> list[tuple[str, list[str], list[str]]]:
    """Run every command of a shell or play block; (command, shown, printed) each, with the
    temporary folder written back as the README's ``tmp`` path."""
    folder = block.options.get("tmp")
    results = []
    for command, shown in transcript(block):
        real = command.replace(folder, str(tmp)) if folder else command
        echo = real.endswith("; echo $?")
        real = real.removesuffix("; echo $?")
        if block.kind == "play":
            screen = io.StringIO()
            stdin = _Terminal(screen, shown, block.options.get("otherwise"))
            status, printed = run_cardrl(real, stdin, screen)
        else:
            status, printed = run_cardrl(real)
            assert echo or status == 0, f"{block.name}: `{command}` exited {status}:\n{printed}"
        if echo:
            printed += f"{status}\n"
        if folder:
            printed = printed.replace(str(tmp), folder)
        results.append((command, shown, printed.splitlines()))
    return results


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    """Commands run from the repository root, without progress bars."""
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.chdir(ROOT)


# =========================================================================================
# the tests
# =========================================================================================
def test_the_readme_marks_its_tested_blocks():
    kinds = {b.kind for b in BLOCKS}
    assert not kinds - set(KINDS), f"unknown kinds {kinds - set(KINDS)}"
    assert set(KINDS) <= kinds, f"no block of kind {set(KINDS) - kinds}"
    for block in BLOCKS:
        assert block.lines, f"{block.name}: the marker is not followed by a block"


@pytest.mark.parametrize("block", _of_kind("python"))
def test_python_examples_run(block, capsys):
    code = "\n".join(block.lines)
    exec(compile(code, block.name, "exec"), {"__name__": "__readme__"})  # noqa: S102


@pytest.mark.parametrize("block", _of_kind("shell", "play"))
def test_shell_examples_print_what_the_readme_shows(block, tmp_path):
    for command, shown, printed in run_shell_block(block, tmp_path):
        assert lines_match(shown, printed), (
            f"{block.name}: `{command}` prints (regenerate the README block from this):\n"
            + "\n".join(printed))


@pytest.mark.parametrize("block", _of_kind("quote"))
def test_quoted_results_are_the_committed_ones(block, tmp_path):
    assert block.words, f"{block.name}: name the quoted file"
    source = (ROOT / block.words[0]).read_text(encoding="utf-8")
    for line in block.lines:
        text = line.removeprefix("$ ").rstrip("\\ ").strip()
        assert text in source, f"{block.name}: {text!r} is not in {block.words[0]}"
    for text in block.lines:
        command = text.removeprefix("$ ").strip()
        if not re.match(r"cardrl (tournament|bidbench) ", command):
            continue
        small = re.sub(r"--deals \d+", "--deals 20", command)
        small = re.sub(r"--batch \d+", "--batch 20", small)
        small = re.sub(r"--out \S+", f"--out {shlex.quote(str(tmp_path / 'out'))}", small)
        status, printed = run_cardrl(small)
        assert status == 0, f"{block.name}: `{small}` exited {status}:\n{printed}"
        flag = "--agents" if "tournament" in command else "--bidders"
        names = re.search(rf"{flag} (\S+)", command).group(1).split(",")
        for name in names:
            label = name.split("=")[0]
            assert re.search(rf"^\s*\|? ?{re.escape(label)}\b", printed, re.M), (
                f"{block.name}: {label} missing from the output of `{small}`:\n{printed}")


PACKAGES = ("envs", "agents", "training", "arena", "records", "bench", "web", "cli")
FOLDERS = (*PACKAGES, "examples", "docs", "configs", "notebooks", "tests", "results")


def _inline_code() -> set[str]:
    """The inline code of the README outside HTML comments (the lead's notes)."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in DOCUMENTS)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return set(re.findall(r"`([^`\n]+)`", text))


def test_the_paths_and_names_the_readme_gives_exist():
    import importlib

    for code in sorted(_inline_code()):
        if code.startswith(tuple(f"{f}/" for f in FOLDERS)) and not re.search(r"[<*…]", code):
            assert (ROOT / code).exists(), f"README names {code}, which does not exist"
        dotted = re.match(rf"(?:{'|'.join(PACKAGES)})(?:\.\w+)+", code)
        if dotted:
            parts = dotted.group(0).split(".")
            for k in range(len(parts), 0, -1):  # the longest importable module, then attributes
                try:
                    target = importlib.import_module(".".join(parts[:k]))
                except ModuleNotFoundError:
                    continue
                for name in parts[k:]:
                    assert hasattr(target, name), f"README names {code}: no {name}"
                    target = getattr(target, name)
                break
            else:
                raise AssertionError(f"README names {code}, which does not import")


# =========================================================================================
# regenerating the README's examples
# =========================================================================================
def main() -> int:
    """Print what every shell and play block of the README prints now."""
    import tempfile

    os.environ["TQDM_DISABLE"] = "1"
    os.chdir(ROOT)
    for block in BLOCKS:
        if block.kind not in ("shell", "play"):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            print(f"==== {block.name}")
            for command, _, printed in run_shell_block(block, Path(tmp)):
                print("$ " + command)
                print("\n".join(printed))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
