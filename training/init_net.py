"""Starting a run from a trained network: the ``init:`` field of a training config.

``init`` names a policy checkpoint (a run's ``policy.pt``, or ``policy``: the committed
checkpoint of the config's table, ``agents/checkpoints/<game>_<variant>.pt``). A batch-PPO
run with it starts from that network's weights instead of random ones: PPO fine-tunes a
trained policy, and a best response (:mod:`training.exploit`, ``--init``) starts where the
strongest network we have already stands. The checkpoint must be the config's network:
the same game and table, the same actions, and the model fields of ``ppo`` (``hidden``,
``activation``, ``features``, ``delegate``, ``symmetry``); a network trained on a former
observation of the game (``agents.policy.features.FORMER_OBSERVATIONS``) is accepted and
reads its former columns. :func:`init_problems` says what does not fit, one string each;
:func:`load_init` returns the checked checkpoint.
"""

from __future__ import annotations

from pathlib import Path

#: the ``init`` value that names the committed checkpoint of the config's table
COMMITTED = "policy"
#: the PPOConfig fields a checkpoint's ``model`` must equal
MODEL_FIELDS = ("hidden", "activation", "features", "delegate", "symmetry")


def init_path(game: str, options: dict, init: str) -> Path:
    """The checkpoint file ``init`` names for ``game`` with table ``options``;
    ``ValueError`` when there is none."""
    from agents.policy.agent import default_checkpoints, describe_variant, train_hint, variant_key

    if init == COMMITTED:
        key = variant_key(game, options)
        found = default_checkpoints(game, key)
        if not found:
            raise ValueError(f"init: {COMMITTED!r} names the committed checkpoint of {game} "
                             f"{describe_variant(game, key)}, and there is none; "
                             f"{train_hint(game, key)}")
        return found[0]
    path = Path(init)
    if not path.is_file():
        raise ValueError(f"init: {init!r} {'is not a file' if path.exists() else 'does not exist'}"
                         f"; expected a policy checkpoint (a run's policy.pt) or {COMMITTED!r}")
    return path


def init_problems(game: str, options: dict, init: str, model: dict, observation_size: int,
                  num_actions: int) -> list[str]:
    """What keeps the checkpoint ``init`` from starting a run of ``game`` (table
    ``options``) whose network has the ``model`` fields (:data:`MODEL_FIELDS`) and the
    engine's ``observation_size`` and ``num_actions``; empty when it fits."""
    return _checked(game, options, init, model, observation_size, num_actions)[1]


def load_init(game: str, options: dict, init: str, model: dict, observation_size: int,
              num_actions: int) -> dict:
    """The checked checkpoint ``init`` (:func:`init_problems` empty, else ``ValueError``
    listing every problem)."""
    checkpoint, problems = _checked(game, options, init, model, observation_size, num_actions)
    if problems:
        raise ValueError("; ".join(problems))
    return checkpoint


def _checked(game: str, options: dict, init: str, model: dict, observation_size: int,
             num_actions: int) -> tuple[dict | None, list[str]]:
    """The checkpoint ``init`` (None if it cannot be read) and its problems
    (:func:`init_problems`), the file read once."""
    from agents.policy.agent import variant_key
    from agents.policy.checkpoint import load_checkpoint
    from agents.policy.features import reads_width

    try:
        checkpoint = load_checkpoint(init_path(game, options, init))
    except ValueError as error:
        return None, [str(error) if str(error).startswith("init") else f"init: {error}"]
    where = f"init: {init!r}"
    if checkpoint["game"] != game:
        return checkpoint, [f"{where} is a network of {checkpoint['game']!r}, expected one "
                            f"of {game!r}"]
    problems = []
    mine, theirs = variant_key(game, options), variant_key(game, checkpoint["options"])
    if mine != theirs:
        problems.append(f"{where} was trained for the table {theirs!r}, the config plays {mine!r}")
    if checkpoint["num_actions"] != num_actions:
        problems.append(f"{where} has {checkpoint['num_actions']} actions, the game "
                        f"{num_actions}")
    if not reads_width(checkpoint["observation_size"], observation_size):
        problems.append(f"{where} reads observations of {checkpoint['observation_size']} "
                        f"columns, the game's have {observation_size}")
    for name in MODEL_FIELDS:
        if checkpoint["model"][name] != model[name]:
            problems.append(f"{where} has model {name}={checkpoint['model'][name]!r}, the "
                            f"config's ppo.{name} is {model[name]!r}: set ppo.{name} to it")
    return checkpoint, problems


def checkpoint_model(game: str, options: dict, init: str) -> dict:
    """The model fields (:data:`MODEL_FIELDS`) of the checkpoint ``init``: what a config
    that starts from it sets in ``ppo``."""
    from agents.policy.checkpoint import load_checkpoint

    model = load_checkpoint(init_path(game, options, init))["model"]
    return {name: model[name] for name in MODEL_FIELDS}
