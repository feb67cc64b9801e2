"""``PolicyAgent``: a trained policy behind the agent interface.

>>> agent = agents.make("policy", "abracadabra")                      # doctest: +SKIP
>>> agent = agents.make("policy", "four_aces", path="runs/x/policy.pt")  # doctest: +SKIP

**Checkpoint format** (``.pt``, a ``torch.save`` of one self-describing dict)::

    format            "cardrl-policy"
    version           1
    game              "abracadabra" | "four_aces"
    options           the game's config fields the policy was trained with
    observation_size  D, the observation length it expects
    num_actions       A, the action-space size
    model             {"hidden": [...], "activation": "tanh" | "relu",
                       "features": "none" | "four_aces" | ...,
                       "delegate": None | agent name,
                       "symmetry": "none" | "suits"}  (agents/policy/net.py; absent
                       "features" and "symmetry" mean "none", absent "delegate" None)
    state_dict        the PolicyNet weights
    trained_steps     learner decisions it was trained on
    algo              "batch_ppo" | "sb3"

An SB3 ``MaskablePPO`` ``.zip`` (saved with ``net_arch=dict(pi=h, vf=h)``) is accepted too
and converted on load (needs sb3-contrib).

Without a path the agent loads the committed default ``agents/checkpoints/<game>_*.pt``
and plays each observation with the one trained for the variant it reads from the
observation (variant, or player count in Four Aces); ``variant=`` loads only
``<game>_<variant>.pt`` explicitly. torch is imported only when a PolicyAgent is built.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.four_aces.symmetry import to_game_order
from agents.policy.delegate import delegated, make_delegate

FORMAT = "cardrl-policy"
VERSION = 1
CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"

#: the config that trains each committed default (for the error message)
TRAIN_HINT = {
    "abracadabra": "configs/abracadabra_four.yaml",
    "four_aces": "configs/four_aces_4p.yaml",
}


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
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(checkpoint, tmp)
    tmp.replace(path)
    return path


def load_checkpoint(path: str | Path) -> dict:
    """A checkpoint dict from a ``.pt`` file, or converted from an SB3 ``.zip``."""
    import torch

    path = Path(path)
    if not path.exists():
        raise ValueError(f"policy checkpoint {str(path)!r} does not exist")
    if path.suffix == ".zip":
        return _load_sb3(path)
    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} checkpoint")
    if checkpoint["version"] > VERSION:
        raise ValueError(f"{path} has checkpoint version {checkpoint['version']}; this code "
                         f"reads up to {VERSION}")
    return checkpoint


def _load_sb3(path: Path) -> dict:
    from sb3_contrib import MaskablePPO

    from agents.policy.net import PolicyNet, from_sb3_state_dict

    model = MaskablePPO.load(path, device="cpu")
    arch = model.policy.net_arch
    hidden = arch["pi"] if isinstance(arch, dict) else arch
    activation = "relu" if model.policy.activation_fn.__name__ == "ReLU" else "tanh"
    net = PolicyNet(model.observation_space.shape[0], model.action_space.n, hidden, activation)
    net.load_state_dict(from_sb3_state_dict(model.policy.state_dict()))
    game = getattr(model, "cardrl_game", None) or "unknown"
    return make_checkpoint(net, game, {}, model.num_timesteps, algo="sb3")


def default_checkpoints(game: str, variant: str | None = None) -> list[Path]:
    """The committed default checkpoints of ``game`` (of ``variant`` if given)."""
    if variant is not None:
        path = CHECKPOINT_DIR / f"{game}_{variant}.pt"
        return [path] if path.exists() else []
    return sorted(p for p in CHECKPOINT_DIR.glob(f"{game}*.pt")
                  if p.stem == game or p.stem.startswith(game + "_"))


def build_net(checkpoint: dict):
    """The ``PolicyNet`` of a checkpoint, weights loaded, in eval mode."""
    from agents.policy.net import PolicyNet

    net = PolicyNet(checkpoint["observation_size"], checkpoint["num_actions"],
                    **checkpoint["model"])
    net.load_state_dict(checkpoint["state_dict"])
    return net.eval()


def variant_key(game: str, options: dict) -> str:
    """The variant a checkpoint was trained for: Abracadabra's ``variant`` or Four Aces'
    player count (the other options do not change what a seat sees or may do)."""
    if game == "abracadabra":
        return str(options.get("variant", "four"))
    return f"{int(options.get('num_players', 4))}p"


def observed_variants(game: str, observations: np.ndarray) -> np.ndarray:
    """The variant key of every observation row, read from its first (one-hot) segment:
    Abracadabra's ``variant``, Four Aces' ``num_players``."""
    if game == "abracadabra":
        from envs.abracadabra.config import VARIANTS

        names = np.array(VARIANTS)
        width = len(VARIANTS)
    else:
        names = np.array(["3p", "4p", "5p"])
        width = 3
    return names[np.asarray(observations)[:, :width].argmax(axis=1)]


class PolicyAgent(Agent):
    """Acts with a trained network: argmax of the masked logits, or a sample of them.

    Args:
        path: a ``.pt`` checkpoint (or SB3 ``.zip``); None loads the committed defaults
            and plays each observation with the one trained for its variant (read from
            the observation).
        checkpoint: an in-memory checkpoint dict instead of ``path``.
        sample: sample from the policy instead of taking the most likely action.
        variant: with ``path=None``, load only ``agents/checkpoints/<game>_<variant>.pt``.
    """

    summary = "trained policy network (cardrl train); path=None loads the committed default"

    def __init__(self, game: str, path: str | Path | None = None, seed: int | None = None,
                 sample: bool = False, variant: str | None = None,
                 checkpoint: dict | None = None, device: str = "cpu"):
        super().__init__(game, seed)
        import torch

        self.torch = torch
        self.sample = sample
        self.device = device
        if checkpoint is None and path is not None:
            checkpoint = load_checkpoint(path)
        if checkpoint is not None:
            candidates = [checkpoint]
        else:
            paths = default_checkpoints(game, variant)
            if not paths:
                which = f"{game}_{variant}.pt" if variant else f"{game}_*.pt"
                raise ValueError(
                    f"no trained policy for {game} in {CHECKPOINT_DIR} (looked for {which}). "
                    f"Train one with `cardrl train --config "
                    f"{TRAIN_HINT.get(game, 'configs/<name>.yaml')} --out runs/NAME`, then "
                    f"copy runs/NAME/policy.pt to agents/checkpoints/<game>_<variant>.pt, "
                    f"or pass path=... to agents.make('policy', ...)"
                )
            candidates = [load_checkpoint(p) for p in paths]
        for c in candidates:
            if c["game"] not in (game, "unknown"):
                raise ValueError(f"the checkpoint was trained on {c['game']!r}, not {game!r}")
        self.checkpoints = candidates
        self.nets = [build_net(c).to(device) for c in candidates]
        # the agent making the decisions a net leaves to its delegate (agents/policy/delegate.py)
        self.delegates = [make_delegate(game, c["model"].get("delegate"), seed)
                          for c in candidates]
        #: variant key -> index of the net that plays it (routing only with several)
        self.routes = {variant_key(game, c["options"]): i for i, c in enumerate(candidates)}

    @property
    def checkpoint(self) -> dict:
        return self.checkpoints[0]

    def _forward(self, net, observations: np.ndarray, masks: np.ndarray):
        """Masked logits of one net in the game's action order; its input (features, a
        suit order) is computed here, on numpy."""
        torch = self.torch
        x, net_masks, action_map = net.encode(observations, masks)
        logits = net.logits(torch.as_tensor(x, device=self.device),
                            torch.as_tensor(net_masks, device=self.device))
        return logits if action_map is None else to_game_order(logits, action_map)

    def _rows_by_net(self, observations: np.ndarray):
        """(net index, row indices) for each net that plays some of the rows."""
        if len(self.nets) == 1:
            yield 0, np.arange(len(observations))
            return
        keys = observed_variants(self.game, observations)
        for key in np.unique(keys):
            if key not in self.routes:
                raise ValueError(
                    f"no committed policy for {self.game} variant {str(key)!r} (have "
                    f"{sorted(self.routes)}): train one, or pass path=...")
            yield self.routes[key], np.flatnonzero(keys == key)

    def _net_act(self, index: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions of net ``index``: the argmax of its masked logits, or a sample."""
        with self.torch.inference_mode():
            logits = self._forward(self.nets[index], observations, masks)
            greedy = logits.argmax(dim=1).cpu().numpy().astype(np.int64)
            if not self.sample:
                return greedy
            probs = self.torch.softmax(logits, dim=1).cpu().numpy().astype(np.float64)
        # inverse-CDF sampling with the agent's own generator (reproducible by seed);
        # illegal actions have probability exactly 0, so a cdf plateau is never chosen
        cdf = np.cumsum(probs, axis=1)
        u = self.rng.random((len(cdf), 1)) * cdf[:, -1:]
        actions = np.minimum((cdf <= u).sum(axis=1), masks.shape[1] - 1)
        bad = ~masks[np.arange(len(actions)), actions]
        actions[bad] = greedy[bad]
        return actions.astype(np.int64)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        observations = np.asarray(observations, dtype=np.float32)
        actions = np.zeros(len(masks), dtype=np.int64)
        for index, rows in self._rows_by_net(observations):

            def net_act(obs, m, index=index):
                return self._net_act(index, obs, m)

            delegate = self.delegates[index]
            act = net_act if delegate is None else delegated(self.game, net_act,
                                                             delegate.act_batch)
            actions[rows] = act(observations[rows], masks[rows])
        return actions
