"""The actor-critic network of trained policies (torch; imported only where needed).

Separate actor and critic MLPs over the observation, the layout of CleanRL's ``ppo.py``
and of SB3's ``MlpPolicy`` with ``net_arch=dict(pi=hidden, vf=hidden)`` — so an SB3
``MaskablePPO`` policy converts to it key by key (:func:`from_sb3_state_dict`). Illegal
actions get the logit ``MASKED`` (their probability underflows to exactly 0).

**Input features.** ``features`` (a model-config field, :data:`agents.policy.features.FEATURES`)
names engineered features appended to the observation: the torch modules take
``concat(obs, features(obs))`` (numpy, float32, :meth:`PolicyNet.prepare`), of
``net.input_size`` columns. Every caller that turns observations into a forward pass
(rollouts, the opponent pool, :class:`agents.policy.agent.PolicyAgent`) goes through
:meth:`PolicyNet.encode`, so a checkpoint (whose model config holds ``features`` and
``symmetry``) is self-describing. ``features="none"`` (the default) is the raw observation.

**Symmetry.** ``symmetry`` (a model-config field, :data:`agents.four_aces.symmetry.SYMMETRIES`)
``"suits"`` makes a Four Aces network see every observation with its suits in a canonical
order and maps its actions back (:mod:`agents.four_aces.symmetry`). Callers therefore go through
:meth:`PolicyNet.encode` (observations and masks -> network input, masks in the
network's action order, and the map back) and :meth:`PolicyNet.game_actions`.

**Delegate.** ``delegate`` (a model-config field, default None) names an agent that makes
the decisions the network does not (:mod:`agents.policy.delegate`: an Abracadabra network that
only bids). The network itself is unchanged; callers route rows with
:func:`agents.policy.delegate.delegated`.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.four_aces.symmetry import SYMMETRIES, to_canonical, to_game_actions
from agents.policy.features import check_features, feature_size, reads_width, with_features

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
MASKED = -1e8

#: SB3 MaskableActorCriticPolicy key prefix -> PolicyNet key prefix
SB3_KEYS = {
    "mlp_extractor.policy_net.": "actor.",
    "action_net.": "actor_head.",
    "mlp_extractor.value_net.": "critic.",
    "value_net.": "critic_head.",
}


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    """Orthogonal weights and constant bias (CleanRL's initialisation)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def state_shapes(input_size: int, num_actions: int, hidden: list[int]) -> dict[str, tuple]:
    """The ``state_dict`` layout of a :class:`PolicyNet`: key -> tensor shape (the actor
    and the critic each a :func:`mlp` of ``hidden`` sizes, then a linear head)."""
    shapes: dict[str, tuple] = {}
    for part, head_size in (("actor", num_actions), ("critic", 1)):
        size = input_size
        for i, h in enumerate(hidden):  # Linear at even indices, the activation between
            shapes[f"{part}.{2 * i}.weight"] = (h, size)
            shapes[f"{part}.{2 * i}.bias"] = (h,)
            size = h
        shapes[f"{part}_head.weight"] = (head_size, size)
        shapes[f"{part}_head.bias"] = (head_size,)
    return shapes


def mlp(in_size: int, hidden: list[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [layer_init(nn.Linear(in_size, size)), ACTIVATIONS[activation]()]
        in_size = size
    return nn.Sequential(*layers)


class PolicyNet(nn.Module):
    """``logits, value = net(x [N, input_size], masks [N, A])`` with masked logits, where
    ``x, masks, action_map = net.encode(obs [N, D], game_masks [N, A])``."""

    def __init__(self, observation_size: int, num_actions: int, hidden=(256, 256),
                 activation: str = "tanh", features: str = "none", delegate: str | None = None,
                 symmetry: str = "none"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation={activation!r}: expected one of {tuple(ACTIVATIONS)}")
        hidden = [int(h) for h in hidden]
        self.features = check_features(features)
        self.delegate = delegate  # the agent making the decisions the net does not make
        if symmetry not in SYMMETRIES:
            raise ValueError(f"symmetry={symmetry!r}: expected one of {SYMMETRIES}")
        self.symmetry = symmetry
        self.input_size = int(observation_size) + feature_size(features)
        self.config = {"observation_size": int(observation_size),
                       "num_actions": int(num_actions), "hidden": hidden,
                       "activation": activation, "features": features, "delegate": delegate,
                       "symmetry": symmetry}
        self.actor = mlp(self.input_size, hidden, activation)
        self.actor_head = layer_init(nn.Linear(hidden[-1], num_actions), std=0.01)
        self.critic = mlp(self.input_size, hidden, activation)
        self.critic_head = layer_init(nn.Linear(hidden[-1], 1), std=1.0)

    def prepare(self, observations: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """``concat(obs, features(obs))``: float32 [N, input_size] (numpy); ``masks`` for
        the feature sets that read them. The network input only without a symmetry; use
        :meth:`encode`. A network of a former observation size given the current
        observation reads its former columns
        (:data:`~agents.policy.features.FORMER_OBSERVATIONS`)."""
        observations = np.asarray(observations, dtype=np.float32)
        size, width = self.config["observation_size"], observations.shape[-1]
        if not reads_width(size, width):
            raise ValueError(f"observations of {width} columns for a network of "
                             f"observation_size={size}: expected {size} columns")
        return with_features(self.features, observations, masks, size)

    def encode(self, observations: np.ndarray, masks: np.ndarray):
        """``(x, masks, action_map)``: the network input float32 [N, input_size], the
        masks in the network's action order, and the map of the network's actions to the
        game's (int [N, A], or None when they are the same: no symmetry)."""
        masks = np.asarray(masks, dtype=bool)
        if self.symmetry == "none":
            return self.prepare(observations, masks), masks, None
        observations, masks, action_map = to_canonical(observations, masks)
        return self.prepare(observations, masks), masks, action_map

    @staticmethod
    def game_actions(actions: np.ndarray, action_map: np.ndarray | None) -> np.ndarray:
        """The game actions of the network's ``actions`` (see :meth:`encode`)."""
        actions = np.asarray(actions, dtype=np.int64)
        return actions if action_map is None else to_game_actions(actions, action_map)

    def logits(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        logits = self.actor_head(self.actor(obs))
        return torch.where(masks, logits, torch.full_like(logits, MASKED))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic_head(self.critic(obs)).squeeze(-1)

    def forward(self, obs: torch.Tensor, masks: torch.Tensor):
        return self.logits(obs, masks), self.value(obs)


def from_sb3_state_dict(state: dict) -> dict:
    """An SB3 MaskablePPO ``policy.state_dict()`` as a :class:`PolicyNet` state dict."""
    out = {}
    for key, value in state.items():
        for old, new in SB3_KEYS.items():
            if key.startswith(old):
                out[new + key[len(old):]] = value
    return out
