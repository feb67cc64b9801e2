"""The policy checkpoint format: plain tensors and plain metadata, read without running code.

A checkpoint (``.pt``) is one ``torch.save`` zip archive of a dict that holds nothing but
tensors, ``str``, ``int``, ``float``, ``bool``, ``None``, lists and dicts, so it loads with
``torch.load(weights_only=True)``: a file whose pickle names any other Python object (a
class, a function such as ``open``) is refused before anything in it runs. Fields::

    format            "cardrl-policy"
    version           2 (VERSION)
    game              "abracadabra" | "four_aces" ("unknown": an SB3 zip converted without one)
    options           the game's config fields the policy was trained with (plain values)
    observation_size  D, the observation length it expects
    num_actions       A, the action-space size
    model             {"hidden": [...], "activation": "tanh" | "relu",
                       "features": "none" | "four_aces" | ...,
                       "delegate": None | agent name,
                       "symmetry": "none" | "suits"}  (agents/policy/net.py; absent
                       "features" and "symmetry" mean "none", absent "delegate" None)
    state_dict        the PolicyNet weights: float tensors of the shapes
                      agents.policy.net.state_shapes gives for the model above
    trained_steps     learner decisions it was trained on
    algo              "batch_ppo" | "sb3"

:func:`load_checkpoint` checks every field before a network is built; each problem (a
missing, empty, truncated or foreign file, a wrong version, a weight of the wrong shape)
is one ``ValueError`` naming the file, what was found and what was expected.

**Bounds.** What a file can make this process allocate is capped before it is allocated:
the file and its archive's members (as declared, uncompressed) hold at most
:data:`MAX_BYTES` bytes before ``torch.load`` reads them; the declared network (its
``observation_size``, ``features``, ``hidden`` of at most :data:`MAX_LAYERS` layers and
``num_actions``) has at most :data:`MAX_PARAMETERS` weights, computed from those numbers
before any weight is looked at (:func:`check_network_size`); and every weight is a
contiguous tensor owning exactly the storage its shape needs (no stride-0 or overlapping
views that declare a huge layer over a few stored bytes, no storage shared or larger than
the tensor); the metadata nests lists and dicts at most :data:`MAX_NESTING` deep. A
network is built only from a checkpoint that passed all of it (docs/security.md).

**Files that load only by unpickling.** An SB3 ``MaskablePPO`` ``.zip`` (cloudpickle) and a
version-1 ``.pt`` (the format read by full unpickling, nothing checked it holds plain
values) can run any code they name when loaded. They load only with ``trust_pickle=True``
(the command line's ``--trust-pickle``), for files from a trusted source; convert them once
with :func:`convert_checkpoint` / :func:`convert_sb3`, or
``python -m agents.policy.convert IN OUT --trust-pickle``, and load the result safely.
``trust_pickle`` unpickles nothing else: every ``.pt`` is first read with
``weights_only=True``, and only one whose pickle declares ``format="cardrl-policy"``,
``version=1`` (read from its opcodes, nothing run) is unpickled when that fails; a
current-version file that is not plain data is refused with or without the flag.

torch is imported only inside the functions that need it.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import NoReturn

from agents.four_aces.symmetry import SYMMETRIES, check_symmetry
from agents.policy.delegate import check_delegate
from agents.policy.features import FEATURES, feature_size
from envs.registry import GAMES, make_config

FORMAT = "cardrl-policy"
VERSION = 2
#: the versions :func:`load_checkpoint` reads; version 1 only with ``trust_pickle=True``
READABLE_VERSIONS = (1, 2)
#: the first bytes of a zip archive (what ``torch.save`` writes)
ZIP_MAGIC = b"PK\x03\x04"
#: the activations of agents.policy.net.ACTIVATIONS (kept here so no torch import is needed)
ACTIVATIONS = ("tanh", "relu")
FIELDS = ("format", "version", "game", "options", "observation_size", "num_actions", "model",
          "state_dict", "trained_steps", "algo")
MODEL_DEFAULTS = {"features": "none", "delegate": None, "symmetry": "none"}
MODEL_FIELDS = ("hidden", "activation", *MODEL_DEFAULTS)
PLAIN_SCALARS = (str, int, float, bool, type(None))
#: what ``trust_pickle`` / ``--trust-pickle`` risks, in one line
TRUST_PICKLE_HELP = ("also load checkpoints that can only be read by unpickling them (SB3 "
                     ".zip models, version-1 .pt files); unpickling runs any code the file "
                     "names, so use it only for files from a source you trust")
#: the most weights a checkpoint's network may have (64 MiB as float32, about 20 times the
#: committed networks): checked from the declared shapes before any weight is allocated
MAX_PARAMETERS = 2**24
#: the most hidden layers of a checkpoint's network (``model.hidden``)
MAX_LAYERS = 32
#: the most bytes of a checkpoint file, and of its archive's members uncompressed (as the
#: archive declares them, before anything is decompressed): float64 weights at
#: MAX_PARAMETERS, an SB3 zip's optimizer state, with room to spare
MAX_BYTES = 2**28
#: the deepest nesting of lists and dicts in a checkpoint's plain values
MAX_NESTING = 16


def _convert_hint(path: Path) -> str:
    return (f"if you trust its source, convert it once with `python -m agents.policy.convert "
            f"{path} NEW.pt --trust-pickle` (or load it with trust_pickle=True, "
            f"--trust-pickle) and use NEW.pt")


# -- writing -------------------------------------------------------------------------------
def make_checkpoint(net, game: str, options: dict, trained_steps: int = 0,
                    algo: str = "batch_ppo") -> dict:
    """The self-describing checkpoint dict of a ``PolicyNet`` (weights copied to CPU)."""
    config = net.config
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "options": dict(options),
        "observation_size": config["observation_size"],
        "num_actions": config["num_actions"],
        "model": {"hidden": list(config["hidden"]), "activation": config["activation"],
                  "features": config.get("features", "none"),
                  "delegate": config.get("delegate"),
                  "symmetry": config.get("symmetry", "none")},
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "trained_steps": int(trained_steps),
        "algo": algo,
    }


def save_checkpoint(checkpoint: dict, path: str | Path) -> Path:
    """Write ``checkpoint`` (checked to be a current-version checkpoint of plain values, so
    that it loads with ``weights_only=True``) to ``path`` atomically: through ``PATH.tmp``,
    removed if the write fails. The path."""
    import torch

    path = Path(path)
    check_checkpoint(checkpoint, f"checkpoint to save as {str(path)!r}", versions=(VERSION,))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        torch.save(checkpoint, tmp)
        tmp.replace(path)
    except BaseException:  # a full disk, an interruption: no half-written file is left
        tmp.unlink(missing_ok=True)
        raise
    return path


# -- reading -------------------------------------------------------------------------------
def load_checkpoint(path: str | Path, trust_pickle: bool = False) -> dict:
    """The checked checkpoint dict of the file ``path``: a ``.pt`` of this format, read
    without running code. With ``trust_pickle=True`` (only for files from a trusted source)
    also an SB3 ``MaskablePPO`` zip or a version-1 ``.pt``, read by full unpickling.
    ``ValueError`` naming the file for anything else."""
    path = Path(path)
    where = f"policy checkpoint {str(path)!r}"
    refusal = (f" (cloudpickle), and that runs any code the file names: refused; "
               f"{_convert_hint(path)}")
    if _is_sb3(path, where, trust_pickle, refusal):
        return check_checkpoint(_load_sb3(path, where), where)
    data, unpickled = _torch_load(path, where, trust_pickle)
    if (not trust_pickle and isinstance(data, dict) and data.get("format") == FORMAT
            and data.get("version") == 1):
        raise ValueError(f"{where} has format version 1, which is read only by unpickling it "
                         f"(nothing checks that it holds plain values): refused; "
                         f"{_convert_hint(path)}")
    return check_checkpoint(data, where, _versions(trust_pickle, unpickled))


def _versions(trust_pickle: bool, unpickled: bool) -> tuple[int, ...]:
    """The versions a file read by :func:`_torch_load` may have: version 1 only when
    trusted, and only version 1 when it was unpickled."""
    if unpickled:
        return (1,)
    return READABLE_VERSIONS if trust_pickle else (VERSION,)


def file_kind(path: Path, where: str) -> str:
    """``"torch"`` (a ``torch.save`` archive) or ``"sb3"`` (an SB3 model zip), read from the
    file's bytes alone (nothing is unpickled); ValueError for a missing, empty, non-zip,
    truncated or corrupt file."""
    if not path.exists():
        raise ValueError(f"{where} does not exist")
    if not path.is_file():
        raise ValueError(f"{where} is not a file; expected a checkpoint file written by "
                         f"torch.save")
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"{where} is empty (0 bytes); expected a {FORMAT} checkpoint written "
                         f"by torch.save")
    if size > MAX_BYTES:
        raise ValueError(f"{where} holds {size:,} bytes; expected a checkpoint of at most "
                         f"{MAX_BYTES:,} bytes (MAX_BYTES)")
    with path.open("rb") as f:
        head = f.read(len(ZIP_MAGIC))
    if head != ZIP_MAGIC:
        raise ValueError(f"{where} is not a torch checkpoint: it starts with {head!r}, "
                         f"expected the zip archive torch.save writes (starting {ZIP_MAGIC!r})")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            declared = sum(info.file_size for info in archive.infolist())
            # torch.load allocates every member at its declared size: bound it first
            bad = archive.testzip() if declared <= MAX_BYTES else None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError, ValueError,
            NotImplementedError) as error:
        raise ValueError(f"{where} is a truncated or corrupt zip archive ({size} bytes: "
                         f"{error}); expected a complete file written by torch.save") from None
    if declared > MAX_BYTES:
        raise ValueError(f"{where} declares {declared:,} bytes in its archive ({size:,} bytes "
                         f"on disk); expected a checkpoint of at most {MAX_BYTES:,} bytes "
                         f"(MAX_BYTES)")
    if bad is not None:
        raise ValueError(f"{where} is corrupt: its archive member {bad!r} fails the CRC check; "
                         f"expected an unmodified file written by torch.save")
    if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
        return "torch"
    if "data" in names and "policy.pth" in names:
        return "sb3"
    raise ValueError(f"{where} is a zip archive but neither a torch checkpoint nor an SB3 "
                     f"model (members {names[:4]}); expected a file written by torch.save")


def _is_sb3(path: Path, where: str, trust_pickle: bool, refusal: str) -> bool:
    """Whether ``path`` is an SB3 model zip (:func:`file_kind`); ValueError, ``refusal``
    ending its message, for one when not ``trust_pickle``."""
    if file_kind(path, where) != "sb3":
        return False
    if not trust_pickle:
        raise ValueError(f"{where} is an SB3 model zip, which loads only by unpickling it"
                         f"{refusal}")
    return True


def unreadable_file(error: Exception, where: str, written_by: str = "torch.save"
                    ) -> ValueError:
    """The ValueError for a ``torch.load`` of the file ``where`` that failed with ``error``
    (other than by refusing its pickle): a file not completely written by ``written_by``."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return ValueError(f"{where} could not be read ({type(error).__name__}: {message}); "
                      f"expected a complete file written by {written_by}")


def _torch_load(path: Path, where: str, trust_pickle: bool) -> tuple[object, bool]:
    """``(data, unpickled)``: ``torch.load`` of a checked torch archive with
    ``weights_only=True``; only when that refuses the pickle, ``trust_pickle`` is set and the
    pickle declares a version-1 checkpoint (:func:`declared_version`, nothing run) is the
    file unpickled (``unpickled`` True). ValueError for anything else."""
    import pickle

    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=True), False
    except pickle.UnpicklingError:
        pass  # not plain data: described below
    except Exception as error:  # noqa: BLE001 - any other failure is an unreadable file
        raise unreadable_file(error, where) from None
    legacy = declared_version(path) == 1
    if trust_pickle and legacy:
        try:
            return torch.load(path, map_location="cpu", weights_only=False), True
        except Exception as error:  # noqa: BLE001 - trusted, but still one clear line
            raise ValueError(f"{where} could not be unpickled ({type(error).__name__}: "
                             f"{_first_line(error)}); expected a version-1 file written by "
                             f"torch.save") from None
    try:
        names = torch.serialization.get_unsafe_globals_in_checkpoint(path)
    except Exception:  # noqa: BLE001 - only to describe the file; the load already failed
        names = []
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    found = f"names {shown}" if names else "is not plain data"
    how = (_convert_hint(path) if legacy else
           "--trust-pickle (trust_pickle=True) unpickles only version-1 files and SB3 zips, "
           "and this file does not declare version 1, so it is never unpickled")
    raise ValueError(f"{where} refused without running it: its pickle {found}, but a "
                     f"{FORMAT} checkpoint holds only tensors and plain values; {how}") from None


def _first_line(error: BaseException) -> str:
    """The first line of ``error``'s message (empty when it has none)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


#: pickle opcodes that push a string, and those that push an integer
_TEXT_OPCODES = frozenset(("UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8",
                           "STRING", "BINSTRING", "SHORT_BINSTRING"))
_INT_OPCODES = frozenset(("INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4"))
#: pickle opcodes that only store the value just pushed in the memo
_MEMO_OPCODES = frozenset(("PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"))


def declared_version(path: Path) -> int | None:
    """The version a torch archive's pickle declares for a :data:`FORMAT` checkpoint, read
    from its opcodes without running any: the value pushed right after the first
    ``"format"`` string must be the string :data:`FORMAT`, the one after the first
    ``"version"`` string an integer. None when the pickle does not declare both or cannot
    be parsed."""
    import pickletools

    expected = {"format": _TEXT_OPCODES, "version": _INT_OPCODES}
    values: dict[str, object] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            name = next(n for n in archive.namelist()
                        if n == "data.pkl" or n.endswith("/data.pkl"))
            data = archive.read(name)
        key = None
        for opcode, arg, _ in pickletools.genops(data):
            if opcode.name in _MEMO_OPCODES:
                continue  # memo bookkeeping between a key and its value
            if key is not None:
                values[key] = arg if opcode.name in expected[key] else None
            key = (arg if opcode.name in _TEXT_OPCODES and arg in expected
                   and arg not in values else None)
            if len(values) == len(expected):
                break
    except Exception:  # noqa: BLE001 - an unparsable pickle declares nothing
        return None
    version = values.get("version")
    return version if values.get("format") == FORMAT and _is_int(version) else None


def _load_sb3(path: Path, where: str, game: str | None = None,
              options: dict | None = None) -> dict:
    """A checkpoint dict converted from an SB3 ``MaskablePPO`` zip (saved with
    ``net_arch=dict(pi=h, vf=h)``). Unpickles the zip: trusted files only. ValueError
    naming ``where`` for a zip that is not such a model."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise ValueError(f"{where} is an SB3 model zip, and reading one needs sb3-contrib: "
                         f"pip install sb3-contrib") from None
    from agents.policy.net import PolicyNet, from_sb3_state_dict

    try:
        model = MaskablePPO.load(path, device="cpu")
        arch = model.policy.net_arch
        hidden = list(arch["pi"] if isinstance(arch, dict) else arch)
        activation = "relu" if model.policy.activation_fn.__name__ == "ReLU" else "tanh"
        observation_size, num_actions = model.observation_space.shape[0], model.action_space.n
        steps = model.num_timesteps
        state = from_sb3_state_dict(model.policy.state_dict())
    except Exception as error:  # noqa: BLE001 - a trusted file, but still one clear line
        raise ValueError(f"{where} could not be read as an SB3 MaskablePPO model "
                         f"({type(error).__name__}: {_first_line(error)}); expected a zip "
                         f"written by MaskablePPO.save with an MLP policy") from None
    check_network_size(observation_size, num_actions, hidden, "none", where)
    net = PolicyNet(observation_size, num_actions, hidden, activation)
    try:
        net.load_state_dict(state)
    except (RuntimeError, KeyError) as error:
        raise ValueError(f"{where} is an SB3 model whose policy is not an MLP of "
                         f"net_arch=dict(pi={hidden}, vf={hidden}) ({_first_line(error)}); "
                         f"expected separate actor and critic MLPs of the same sizes") from None
    game = game or getattr(model, "cardrl_game", None) or "unknown"
    return make_checkpoint(net, game, options or {}, steps, algo="sb3")


# -- checking ------------------------------------------------------------------------------
def _describe(value) -> str:
    if isinstance(value, dict):
        keys = sorted(map(str, value))
        return f"a dict with keys {keys[:8]}{' ...' if len(keys) > 8 else ''}"
    return f"a {type(value).__name__}"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plain_problem(value, field: str, depth: int = 0) -> str | None:
    """Where ``value`` holds something other than plain scalars, lists and dicts, or lists
    and dicts nested deeper than :data:`MAX_NESTING`; None when it holds neither."""
    if type(value) in PLAIN_SCALARS:  # exact types: numpy scalars subclass float and str
        return None
    if type(value) in (list, tuple, dict) and depth >= MAX_NESTING:
        return (f"{field} nests lists and dicts more than {MAX_NESTING} deep; expected "
                f"plain values nested at most {MAX_NESTING} deep")
    if type(value) in (list, tuple):
        return next((p for i, v in enumerate(value)
                     if (p := _plain_problem(v, f"{field}[{i}]", depth + 1))), None)
    if type(value) is dict:
        for key, v in value.items():
            if not isinstance(key, str):
                return f"{field} has the key {_shown(key)}, expected str keys"
            if (problem := _plain_problem(v, f"{field}.{key[:40]}", depth + 1)) is not None:
                return problem
        return None
    return (f"{field} is a {type(value).__module__}.{type(value).__name__}; expected a plain "
            f"value (str, int, float, bool, None, list or dict)")


def _shown(value, limit: int = 120) -> str:
    """``repr(value)``, cut to ``limit`` characters (a message stays one short line)."""
    try:
        text = repr(value)
    except ValueError:  # an integer of more digits than Python converts to text
        return f"an integer of {value.bit_length()} bits"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def network_size(observation_size: int, num_actions: int, hidden: list[int],
                 features: str = "none") -> int:
    """The number of weights of the :class:`~agents.policy.net.PolicyNet` these numbers
    declare (actor and critic MLPs of ``hidden`` sizes over the observation and its
    ``features``, then their heads), computed without building anything."""
    input_size = observation_size + feature_size(features)
    total = 0
    for head in (num_actions, 1):
        size = input_size
        for width in [*hidden, head]:
            total += (size + 1) * width
            size = width
    return total


def check_network_size(observation_size: int, num_actions: int, hidden: list[int],
                       features: str = "none", where: str = "the network") -> int:
    """:func:`network_size` of the declared network; ValueError naming ``where`` when it
    has more than :data:`MAX_PARAMETERS` weights or ``hidden`` more than
    :data:`MAX_LAYERS` layers (nothing is allocated either way)."""
    if len(hidden) > MAX_LAYERS:
        raise ValueError(f"{where} declares {len(hidden)} hidden layers; expected at most "
                         f"{MAX_LAYERS} (MAX_LAYERS)")
    size = network_size(observation_size, num_actions, hidden, features)
    if size > MAX_PARAMETERS:
        shown = hidden if len(hidden) <= 8 else [*hidden[:8], "..."]
        raise ValueError(f"{where} declares a network of {size:,} weights ({size * 4:,} bytes "
                         f"as float32: observation_size={observation_size}, "
                         f"features={features!r}, hidden={shown}, num_actions={num_actions}); "
                         f"expected at most {MAX_PARAMETERS:,} (MAX_PARAMETERS)")
    return size


def check_checkpoint(checkpoint, where: str = "the checkpoint",
                     versions: tuple[int, ...] = READABLE_VERSIONS) -> dict:
    """``checkpoint`` with the model's absent optional fields filled in, after checking
    every field (:data:`FIELDS`) against the format; ValueError naming ``where``, the field,
    what was found and what was expected."""
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != FORMAT:
        raise ValueError(f"{where} is not a {FORMAT} checkpoint: found {_describe(checkpoint)}"
                         f"; expected a dict with format={FORMAT!r}")
    version = checkpoint.get("version")
    if not _is_int(version) or version < 1:
        raise ValueError(f"{where} has version={_shown(version)}; expected one of "
                         f"{READABLE_VERSIONS}")
    if version > VERSION:
        raise ValueError(f"{where} has format version {version}, written by a newer cardrl; "
                         f"this code reads versions up to {VERSION}")
    if version not in versions:
        raise ValueError(f"{where} has format version {version}, which is read only by "
                         f"unpickling it (trust_pickle=True, --trust-pickle); expected version "
                         f"{' or '.join(map(str, versions))}")
    checkpoint = dict(checkpoint)
    if version == 1:  # fields a version-1 file may lack
        checkpoint.setdefault("trained_steps", 0)
        checkpoint.setdefault("algo", "unknown")
    missing = [f for f in FIELDS if f not in checkpoint]
    if missing:
        raise ValueError(f"{where} lacks the field(s) {missing}; expected all of {list(FIELDS)}")

    # plain values, not too deep, before any of them is shown in a message
    extra = {k: v for k, v in checkpoint.items() if k != "state_dict"}
    if (problem := _plain_problem(extra, "checkpoint")) is not None:
        raise ValueError(f"{where}: {problem}")

    def bad(field: str, expected: str) -> NoReturn:
        raise ValueError(f"{where}: {field}={_shown(checkpoint_value(field))}; expected "
                         f"{expected}")

    def checkpoint_value(field: str):
        value = checkpoint
        for part in field.split("."):
            value = value[part]
        return value if isinstance(value, PLAIN_SCALARS + (list, tuple)) else _describe(value)

    game = checkpoint["game"]
    if game not in (*GAMES, "unknown"):
        bad("game", f"one of {GAMES}")
    if not isinstance(checkpoint["options"], dict):
        bad("options", "a dict of the game's config fields")
    for field in ("observation_size", "num_actions"):
        if not _is_int(checkpoint[field]) or not 1 <= checkpoint[field] <= MAX_PARAMETERS:
            bad(field, f"a positive integer of at most {MAX_PARAMETERS:,} (MAX_PARAMETERS)")
    if not _is_int(checkpoint["trained_steps"]) or checkpoint["trained_steps"] < 0:
        bad("trained_steps", "a non-negative integer")
    if not isinstance(checkpoint["algo"], str):
        bad("algo", "a string such as 'batch_ppo' or 'sb3'")
    if game != "unknown":
        try:
            make_config(game, **checkpoint["options"])
        except (TypeError, ValueError) as error:
            raise ValueError(f"{where}: options={_shown(checkpoint['options'])} are not {game} "
                             f"config fields ({_first_line(error)})") from None

    model = checkpoint["model"]
    if not isinstance(model, dict):
        bad("model", f"a dict with fields {list(MODEL_FIELDS)}")
    unknown = sorted(set(map(str, model)) - set(MODEL_FIELDS))
    if unknown or "hidden" not in model or "activation" not in model:
        raise ValueError(f"{where}: model has the fields {_shown(sorted(map(str, model)))}; "
                         f"expected "
                         f"hidden, activation and optionally {list(MODEL_DEFAULTS)}")
    model = {**MODEL_DEFAULTS, **model}
    checkpoint["model"] = model
    hidden = model["hidden"]
    if (not isinstance(hidden, (list, tuple)) or not hidden or len(hidden) > MAX_LAYERS
            or not all(_is_int(h) and 1 <= h <= MAX_PARAMETERS for h in hidden)):
        bad("model.hidden", f"a non-empty list of at most {MAX_LAYERS} layer sizes, each "
                            f"1..{MAX_PARAMETERS:,}")
    if model["activation"] not in ACTIVATIONS:
        bad("model.activation", f"one of {ACTIVATIONS}")
    if model["features"] not in FEATURES:
        bad("model.features", f"one of {tuple(FEATURES)}")
    if model["symmetry"] not in SYMMETRIES:
        bad("model.symmetry", f"one of {SYMMETRIES}")
    if model["delegate"] is not None and not isinstance(model["delegate"], str):
        bad("model.delegate", "None or an agent name")
    if game != "unknown":
        try:
            check_symmetry(game, model["symmetry"])
            check_delegate(game, model["delegate"])
        except ValueError as error:
            raise ValueError(f"{where}: model.{error}") from None
    # the declared network is bounded before any of its weights is looked at
    check_network_size(checkpoint["observation_size"], checkpoint["num_actions"],
                       list(hidden), model["features"], where)
    _check_state_dict(checkpoint, where)
    return checkpoint


def _check_state_dict(checkpoint: dict, where: str) -> None:
    """The weights are exactly the finite float tensors the declared network has."""
    import torch

    from agents.policy.net import state_shapes

    model = checkpoint["model"]
    input_size = checkpoint["observation_size"] + feature_size(model["features"])
    expected = state_shapes(input_size, checkpoint["num_actions"], list(model["hidden"]))
    state = checkpoint["state_dict"]
    if not isinstance(state, dict):
        raise ValueError(f"{where}: state_dict is {_describe(state)}; expected a dict of "
                         f"tensors")
    missing = [k for k in expected if k not in state]
    unexpected = sorted(k if isinstance(k, str) else _shown(k, 40) for k in state
                        if k not in expected)
    if missing or unexpected:
        found = " and ".join(([f"lacks {_shown(missing, 400)}"] if missing else [])
                             + ([f"has unexpected {_shown(unexpected, 400)}"] if unexpected
                                else []))
        raise ValueError(f"{where}: state_dict {found}; expected the keys {list(expected)} of "
                         f"the declared network")
    owners: dict[int, str] = {}  # storage address -> the key whose tensor owns it
    for key, shape in expected.items():
        tensor = state[key]
        if not isinstance(tensor, torch.Tensor):
            raise ValueError(f"{where}: state_dict[{key!r}] is {_describe(tensor)}; expected a "
                             f"tensor of shape {list(shape)}")
        if tuple(tensor.shape) != shape:
            raise ValueError(
                f"{where}: state_dict[{key!r}] has shape {list(tensor.shape)}; the declared "
                f"network (observation_size={checkpoint['observation_size']}, "
                f"features={model['features']!r}, hidden={list(model['hidden'])}, "
                f"num_actions={checkpoint['num_actions']}) expects {list(shape)}")
        if not tensor.is_floating_point():
            raise ValueError(f"{where}: state_dict[{key!r}] has dtype {tensor.dtype}; expected "
                             f"a float tensor")
        _check_storage(tensor, f"{where}: state_dict[{key!r}]", owners, key)
        if not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{where}: state_dict[{key!r}] holds NaN or infinite values; "
                             f"expected finite weights")


def _check_storage(tensor, where: str, owners: dict[int, str], key: str) -> None:
    """``tensor`` is a plain dense CPU tensor laid out contiguously from the start of a
    storage of exactly its size, shared with no other weight (``owners``: storage address ->
    the key of the weight that owns it, updated); ValueError naming ``where`` otherwise.
    A stride-0 or overlapping view would let a few stored bytes declare a huge layer."""
    import torch

    if tensor.layout != torch.strided or tensor.device.type != "cpu":
        raise ValueError(f"{where} is a {tensor.layout} tensor on {tensor.device}; expected a "
                         f"dense (strided) CPU tensor")
    needed = tensor.numel() * tensor.element_size()
    stored = tensor.untyped_storage().nbytes()
    if not tensor.is_contiguous() or tensor.storage_offset() != 0 or stored != needed:
        raise ValueError(
            f"{where} is a view with strides {list(tensor.stride())} at offset "
            f"{tensor.storage_offset()} of a storage of {stored:,} bytes; expected a "
            f"contiguous tensor owning exactly the {needed:,} bytes its shape needs "
            f"(stride-0, overlapping and partial views are refused)")
    address = tensor.untyped_storage().data_ptr()
    if address in owners:
        raise ValueError(f"{where} shares its storage with state_dict[{owners[address]!r}]; "
                         f"expected every weight to own its storage")
    owners[address] = key


def build_net(checkpoint: dict):
    """The ``PolicyNet`` of a checked checkpoint, weights loaded, in eval mode. The modules
    are made on torch's meta device (no memory, no initialisation) and get the checkpoint's
    weights, so loading costs one copy of them."""
    import torch

    from agents.policy.net import PolicyNet

    with torch.device("meta"):
        net = PolicyNet(checkpoint["observation_size"], checkpoint["num_actions"],
                        **checkpoint["model"])
    net = net.to_empty(device="cpu")
    net.load_state_dict(checkpoint["state_dict"])
    return net.eval()


# -- converting ----------------------------------------------------------------------------
def convert_checkpoint(path: str | Path, out_path: str | Path, *, trust_pickle: bool = False,
                       game: str | None = None, options: dict | None = None) -> Path:
    """Rewrite the checkpoint at ``path`` in the current format at ``out_path``, weights and
    metadata unchanged but for ``version``. A version-1 ``.pt`` or an SB3 zip needs
    ``trust_pickle=True`` (it is unpickled: trusted files only); ``game`` and ``options``
    describe an SB3 model, which does not record them. The written path."""
    path = Path(path)
    where = f"policy checkpoint {str(path)!r}"
    refusal = "; convert it with trust_pickle=True (--trust-pickle) if you trust its source"
    if _is_sb3(path, where, trust_pickle, refusal):
        data = _load_sb3(path, where, game, options)
    else:
        data, unpickled = _torch_load(path, where, trust_pickle)
        check_checkpoint(data, where, _versions(trust_pickle, unpickled))
        data = dict(data)
        data.setdefault("trained_steps", 0)
        data.setdefault("algo", "unknown")
    data["version"] = VERSION
    return save_checkpoint(data, out_path)


def convert_sb3(zip_path: str | Path, out_path: str | Path, game: str | None = None,
                options: dict | None = None) -> Path:
    """:func:`convert_checkpoint` of an SB3 ``MaskablePPO`` zip. Calling it trusts the zip:
    loading it unpickles it, which runs any code it names."""
    return convert_checkpoint(zip_path, out_path, trust_pickle=True, game=game,
                              options=options)
