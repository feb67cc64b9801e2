"""The learner's network as an actor of the opponent pool, for both trainers.

An actor is ``act(obs [N, D], masks [N, A]) -> int64 [N]`` (``training/opponents.py``):
:func:`net_act_fn` wraps a :class:`~agents.policy.net.PolicyNet` (the learner's ``self``
seats), :func:`frozen_act_fn` a frozen copy of its weights (a snapshot), and
:func:`make_delegate_agent` builds the agent that makes the decisions the network does not.
"""

from __future__ import annotations

import numpy as np

from training.config import TrainConfig


def net_act_fn(net, sample: bool = True, delegate=None):
    """``act(obs, masks) -> actions`` of a PolicyNet (sampled, or greedy); with a
    ``delegate`` agent, the rows the net does not decide are its (agents/policy/delegate.py)."""
    import torch

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x, net_masks, action_map = net.encode(obs, masks)
            logits = net.logits(torch.as_tensor(x), torch.as_tensor(net_masks))
            if sample:
                gumbel = -torch.log(-torch.log(torch.rand_like(logits).clamp_(1e-12, 1.0)))
                logits = logits + gumbel
            return net.game_actions(logits.argmax(dim=1).numpy(), action_map)

    if delegate is None:
        return act
    from agents.policy.delegate import delegated

    return delegated(delegate.game, act, delegate.act_batch)


def frozen_act_fn(cfg: TrainConfig, state_dict: dict, observation_size: int, num_actions: int,
                  delegate=None):
    """A sampling act function of a frozen copy of the learner (for snapshots)."""
    from agents.policy.net import PolicyNet

    net = PolicyNet(observation_size, num_actions, cfg.ppo.hidden, cfg.ppo.activation,
                    cfg.ppo.features, cfg.ppo.delegate, cfg.ppo.symmetry)
    net.load_state_dict(state_dict)
    return net_act_fn(net.eval(), sample=True, delegate=delegate)


def make_delegate_agent(cfg: TrainConfig):
    """The agent making the decisions the learner's network does not, or None."""
    from agents.policy.delegate import make_delegate

    return make_delegate(cfg.game, cfg.ppo.delegate, seed=cfg.seed + 777)
