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

**Files that load only by unpickling.** An SB3 ``MaskablePPO`` ``.zip`` (cloudpickle) and a
version-1 ``.pt`` (the format read by full unpickling, nothing checked it holds plain
values) can run any code they name when loaded. They load only with ``trust_pickle=True``
(the command line's ``--trust-pickle``), for files from a trusted source; convert them once
with :func:`convert_checkpoint` / :func:`convert_sb3`, or
``python -m agents.policy.convert IN OUT --trust-pickle``, and load the result safely.

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
    that it loads with ``weights_only=True``) to ``path`` atomically. The path."""
    import torch

    path = Path(path)
    check_checkpoint(checkpoint, f"checkpoint to save as {str(path)!r}", versions=(VERSION,))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(checkpoint, tmp)
    tmp.replace(path)
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
        return check_checkpoint(_load_sb3(path), where)
    data = _torch_load(path, where, trust_pickle)
    if (not trust_pickle and isinstance(data, dict) and data.get("format") == FORMAT
            and data.get("version") == 1):
        raise ValueError(f"{where} has format version 1, which is read only by unpickling it "
                         f"(nothing checks that it holds plain values): refused; "
                         f"{_convert_hint(path)}")
    return check_checkpoint(data, where, READABLE_VERSIONS if trust_pickle else (VERSION,))


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
    with path.open("rb") as f:
        head = f.read(len(ZIP_MAGIC))
    if head != ZIP_MAGIC:
        raise ValueError(f"{where} is not a torch checkpoint: it starts with {head!r}, "
                         f"expected the zip archive torch.save writes (starting {ZIP_MAGIC!r})")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            bad = archive.testzip()
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError, ValueError,
            NotImplementedError) as error:
        raise ValueError(f"{where} is a truncated or corrupt zip archive ({size} bytes: "
                         f"{error}); expected a complete file written by torch.save") from None
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


def _torch_load(path: Path, where: str, trust_pickle: bool):
    """``torch.load`` of a checked torch archive: ``weights_only`` unless trusted."""
    import pickle

    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=not trust_pickle)
    except pickle.UnpicklingError as error:
        if trust_pickle:
            raise ValueError(f"{where} could not be unpickled ({error}); expected a file "
                             f"written by torch.save") from None
        try:
            names = torch.serialization.get_unsafe_globals_in_checkpoint(path)
        except Exception:  # noqa: BLE001 - only to describe the file; the load already failed
            names = []
        found = f"names {', '.join(names)}" if names else "is not plain data"
        raise ValueError(f"{where} refused without running it: its pickle {found}, but a "
                         f"{FORMAT} checkpoint holds only tensors and plain values; "
                         f"{_convert_hint(path)}") from None
    except Exception as error:  # noqa: BLE001 - any other failure is an unreadable file
        raise unreadable_file(error, where) from None


def _load_sb3(path: Path, game: str | None = None, options: dict | None = None) -> dict:
    """A checkpoint dict converted from an SB3 ``MaskablePPO`` zip (saved with
    ``net_arch=dict(pi=h, vf=h)``). Unpickles the zip: trusted files only."""
    from sb3_contrib import MaskablePPO

    from agents.policy.net import PolicyNet, from_sb3_state_dict

    model = MaskablePPO.load(path, device="cpu")
    arch = model.policy.net_arch
    hidden = arch["pi"] if isinstance(arch, dict) else arch
    activation = "relu" if model.policy.activation_fn.__name__ == "ReLU" else "tanh"
    net = PolicyNet(model.observation_space.shape[0], model.action_space.n, hidden, activation)
    net.load_state_dict(from_sb3_state_dict(model.policy.state_dict()))
    game = game or getattr(model, "cardrl_game", None) or "unknown"
    return make_checkpoint(net, game, options or {}, model.num_timesteps, algo="sb3")


# -- checking ------------------------------------------------------------------------------
def _describe(value) -> str:
    if isinstance(value, dict):
        keys = sorted(map(str, value))
        return f"a dict with keys {keys[:8]}{' ...' if len(keys) > 8 else ''}"
    return f"a {type(value).__name__}"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plain_problem(value, field: str) -> str | None:
    """Where ``value`` holds something other than plain scalars, lists and dicts, or None."""
    if type(value) in PLAIN_SCALARS:  # exact types: numpy scalars subclass float and str
        return None
    if type(value) in (list, tuple):
        return next((p for i, v in enumerate(value)
                     if (p := _plain_problem(v, f"{field}[{i}]"))), None)
    if type(value) is dict:
        for key, v in value.items():
            if not isinstance(key, str):
                return f"{field} has the key {key!r}, expected str keys"
            if (problem := _plain_problem(v, f"{field}.{key}")) is not None:
                return problem
        return None
    return (f"{field} is a {type(value).__module__}.{type(value).__name__}; expected a plain "
            f"value (str, int, float, bool, None, list or dict)")


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
        raise ValueError(f"{where} has version={version!r}; expected one of {READABLE_VERSIONS}")
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

    def bad(field: str, expected: str) -> NoReturn:
        raise ValueError(f"{where}: {field}={checkpoint_value(field)!r}; expected {expected}")

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
        if not _is_int(checkpoint[field]) or checkpoint[field] < 1:
            bad(field, "a positive integer")
    if not _is_int(checkpoint["trained_steps"]) or checkpoint["trained_steps"] < 0:
        bad("trained_steps", "a non-negative integer")
    if not isinstance(checkpoint["algo"], str):
        bad("algo", "a string such as 'batch_ppo' or 'sb3'")
    extra = {k: v for k, v in checkpoint.items() if k != "state_dict"}
    if (problem := _plain_problem(extra, "checkpoint")) is not None:
        raise ValueError(f"{where}: {problem}")
    if game != "unknown":
        try:
            make_config(game, **checkpoint["options"])
        except (TypeError, ValueError) as error:
            raise ValueError(f"{where}: options={checkpoint['options']!r} are not {game} config "
                             f"fields ({error})") from None

    model = checkpoint["model"]
    if not isinstance(model, dict):
        bad("model", f"a dict with fields {list(MODEL_FIELDS)}")
    unknown = sorted(set(map(str, model)) - set(MODEL_FIELDS))
    if unknown or "hidden" not in model or "activation" not in model:
        raise ValueError(f"{where}: model has the fields {sorted(map(str, model))}; expected "
                         f"hidden, activation and optionally {list(MODEL_DEFAULTS)}")
    model = {**MODEL_DEFAULTS, **model}
    checkpoint["model"] = model
    hidden = model["hidden"]
    if (not isinstance(hidden, (list, tuple)) or not hidden
            or not all(_is_int(h) and h > 0 for h in hidden)):
        bad("model.hidden", "a non-empty list of positive layer sizes")
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
    unexpected = sorted(str(k) for k in state if k not in expected)
    if missing or unexpected:
        found = " and ".join(([f"lacks {missing}"] if missing else [])
                             + ([f"has unexpected {unexpected}"] if unexpected else []))
        raise ValueError(f"{where}: state_dict {found}; expected the keys {list(expected)} of "
                         f"the declared network")
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
        if not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{where}: state_dict[{key!r}] holds NaN or infinite values; "
                             f"expected finite weights")


def build_net(checkpoint: dict):
    """The ``PolicyNet`` of a checked checkpoint, weights loaded, in eval mode."""
    from agents.policy.net import PolicyNet

    net = PolicyNet(checkpoint["observation_size"], checkpoint["num_actions"],
                    **checkpoint["model"])
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
        data = _load_sb3(path, game, options)
    else:
        data = _torch_load(path, where, trust_pickle)
        check_checkpoint(data, where, READABLE_VERSIONS if trust_pickle else (VERSION,))
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
