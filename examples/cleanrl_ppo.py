"""CleanRL-style PPO in one file: every seat shares one masked actor-critic (torch only).

The structure of PettingZoo's CleanRL tutorial ("CleanRL: Implementing PPO", PPO on
Pistonball through the parallel API): an ``Agent`` module with ``get_value`` and
``get_action_and_value``, ``batchify`` / ``unbatchify`` helpers, whole episodes
collected under ``torch.no_grad()``, then a few epochs of clipped-PPO minibatch updates.
What a turn-based card game changes, and nothing else:

- The parallel API comes from ``turn_based_aec_to_parallel(env())``: every live seat
  receives an observation each step, only the seat whose ``action_mask`` is not all zeros
  acts (the others' actions are ignored), every seat receives its reward.
- The policy is *masked*: illegal actions get a logit of -1e9, so they are never sampled
  and carry no probability in the update (the env would end the game on one, with -1 to
  the offender: PettingZoo's classic convention, the default of ``env()``).
- A decision's reward is everything its seat receives until that seat's next decision (or
  the end of the game), and the advantages (GAE) run along each seat's own decisions.

Run: ``python examples/cleanrl_ppo.py --game four_aces --num-players 4 --updates 50``;
``--game all`` trains a little on each of the seven tables in turn.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from pettingzoo.utils.conversions import turn_based_aec_to_parallel
from torch.distributions.categorical import Categorical

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES

#: every table: (game, the env's own keyword for it)
TABLES = ([("abracadabra", {"variant": v}) for v in VARIANTS]
          + [("four_aces", {"num_players": p})
             for p in range(RANGES["num_players"][0], RANGES["num_players"][1] + 1)])


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows this docstring as written and each option's default."""


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game``, ``--variant``, ``--num-players``: the table, in ``env()``'s keywords."""
    parser.add_argument("--game", choices=["abracadabra", "four_aces", "all"], default="four_aces",
                        help="which game ('all': every table in turn)")
    parser.add_argument("--variant", choices=VARIANTS, default="four",
                        help="Abracadabra's table: abracadabra_v1.env(variant=...)")
    parser.add_argument("--num-players", type=int, choices=range(RANGES["num_players"][0],
                                                                 RANGES["num_players"][1] + 1),
                        default=4, help="Four Aces' table: four_aces_v0.env(num_players=...)")


def table_of(args: argparse.Namespace) -> dict:
    """The keyword of ``env()`` that chooses the table."""
    if args.game == "abracadabra":
        return {"variant": args.variant}
    return {"num_players": args.num_players}


class Agent(nn.Module):
    """The actor-critic shared by every seat: an MLP torso, a policy and a value head."""

    def __init__(self, observation_size: int, num_actions: int, hidden: int = 128):
        super().__init__()
        self.network = nn.Sequential(
            self._layer_init(nn.Linear(observation_size, hidden)), nn.Tanh(),
            self._layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
        )
        self.actor = self._layer_init(nn.Linear(hidden, num_actions), std=0.01)
        self.critic = self._layer_init(nn.Linear(hidden, 1), std=1.0)

    @staticmethod
    def _layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0):
        torch.nn.init.orthogonal_(layer.weight, std)
        torch.nn.init.constant_(layer.bias, bias_const)
        return layer

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.network(x))

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor,
                             action: torch.Tensor | None = None):
        """(action, its log-probability, the entropy, the value) under the legal ``mask``."""
        hidden = self.network(x)
        logits = self.actor(hidden).masked_fill(~mask, -1e9)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden)


def batchify(observations: dict, key: str, agents: list[str]) -> torch.Tensor:
    """One row per agent of ``agents``: PettingZoo's per-agent dicts as a tensor."""
    return torch.as_tensor(np.stack([observations[a][key] for a in agents]))


def unbatchify(actions: torch.Tensor, agents: list[str]) -> dict[str, int]:
    """A tensor of one action per agent as PettingZoo's per-agent dict."""
    return {a: int(x) for a, x in zip(agents, actions.tolist(), strict=True)}


def make_env(game: str, table: dict):
    """The turn-based game as a ``ParallelEnv`` (the defaults of ``env()`` otherwise)."""
    module = abracadabra_v1 if game == "abracadabra" else four_aces_v0
    return turn_based_aec_to_parallel(module.env(**table))


def collect_episode(env, agent: Agent, seed: int) -> tuple[dict, dict[str, float]]:
    """Play one game with ``agent`` in every seat. Returns the decisions (per seat, in
    order: observation, mask, action, log-probability, value, reward, done) and each seat's
    return."""
    observations, _ = env.reset(seed=seed)
    seats: dict[str, dict[str, list]] = {a: {k: [] for k in ("obs", "mask", "action", "logprob",
                                                            "value", "reward", "done")}
                                         for a in env.possible_agents}
    returns = dict.fromkeys(env.possible_agents, 0.0)
    with torch.no_grad():
        while env.agents:
            live = list(env.agents)
            obs = batchify(observations, "observation", live).float()
            mask = batchify(observations, "action_mask", live).bool()
            acting = mask.any(dim=1)  # the one seat to act
            actions, logprobs, _, values = agent.get_action_and_value(obs, mask | ~acting[:, None])
            observations, rewards, terms, truncs, infos = env.step(unbatchify(actions, live))
            for i in np.flatnonzero(acting.numpy()):
                seat = seats[live[i]]
                seat["obs"].append(obs[i]), seat["mask"].append(mask[i])
                seat["action"].append(actions[i]), seat["logprob"].append(logprobs[i])
                seat["value"].append(values[i, 0]), seat["reward"].append(0.0)
                seat["done"].append(False)
            for name, reward in rewards.items():
                returns[name] += reward
                if seats[name]["reward"]:  # credited to the seat's latest decision
                    seats[name]["reward"][-1] += reward
            for info in infos.values():
                if "illegal_action" in info:
                    raise RuntimeError(f"the masked policy played an illegal action: {info}")
    for seat in seats.values():
        if seat["done"]:
            seat["done"][-1] = True  # the game is over for every seat
    return seats, returns


def advantages(seats: dict, gamma: float, gae_lambda: float) -> dict[str, torch.Tensor]:
    """GAE along each seat's own decisions, flattened over the seats (with the returns)."""
    parts: dict[str, list[torch.Tensor]] = {k: [] for k in (
        "obs", "mask", "action", "logprob", "value", "advantage", "return")}
    for seat in seats.values():
        n = len(seat["reward"])
        if n == 0:
            continue
        values = torch.stack(seat["value"])
        rewards = torch.tensor(seat["reward"])
        done = torch.tensor(seat["done"], dtype=torch.float32)
        adv, last = torch.zeros(n), 0.0
        for t in reversed(range(n)):
            next_value = 0.0 if t == n - 1 else values[t + 1]
            delta = rewards[t] + gamma * next_value * (1 - done[t]) - values[t]
            last = delta + gamma * gae_lambda * (1 - done[t]) * last
            adv[t] = last
        for key in ("obs", "mask", "action", "logprob"):
            parts[key].append(torch.stack(seat[key]))
        parts["value"].append(values), parts["advantage"].append(adv)
        parts["return"].append(adv + values)
    return {k: torch.cat(v) for k, v in parts.items()}


def ppo_update(agent: Agent, optimizer: optim.Optimizer, batch: dict, args) -> dict:
    """Clipped PPO on ``batch``: ``args.epochs`` passes of shuffled minibatches."""
    n, clip = len(batch["action"]), args.clip_coef
    clip_fracs, stats = [], {}
    for _ in range(args.epochs):
        for index in torch.randperm(n).split(args.minibatch_size):
            _, newlogprob, entropy, value = agent.get_action_and_value(
                batch["obs"][index], batch["mask"][index], batch["action"][index])
            logratio = newlogprob - batch["logprob"][index]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clip_fracs.append(((ratio - 1.0).abs() > clip).float().mean().item())
            adv = batch["advantage"][index]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(index) > 1 else adv
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()
            v_loss = 0.5 * ((value.flatten() - batch["return"][index]) ** 2).mean()
            loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()
            stats = {"policy_loss": pg_loss.item(), "value_loss": v_loss.item(),
                     "approx_kl": approx_kl.item()}
    return {**stats, "clip_fraction": float(np.mean(clip_fracs))}


def train(game: str, table: dict, args) -> Agent:
    """PPO on one table: ``args.updates`` rounds of ``args.episodes`` games, then updates."""
    env = make_env(game, table)
    first = env.possible_agents[0]
    agent = Agent(env.observation_space(first)["observation"].shape[0],
                  int(env.action_space(first).n))
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    name = f"{game} {', '.join(f'{k}={v}' for k, v in table.items())}"
    decisions, start = 0, time.perf_counter()
    for update in range(args.updates):
        episodes, returns = [], []
        for e in range(args.episodes):
            seats, episode_returns = collect_episode(
                env, agent, seed=args.seed + update * args.episodes + e)
            episodes.append(seats)
            returns.append(np.mean(list(episode_returns.values())))
        merged = {a: v for i, seats in enumerate(episodes) for a, v in
                  ((f"{i}/{a}", s) for a, s in seats.items())}
        batch = advantages(merged, args.gamma, args.gae_lambda)
        decisions += len(batch["action"])
        stats = ppo_update(agent, optimizer, batch, args)
        print(f"{name}: update {update}: {len(batch['action'])} decisions, mean return "
              f"per seat {np.mean(returns):.2f}, policy loss {stats['policy_loss']:.3f}, "
              f"value loss {stats['value_loss']:.3f}, approx KL {stats['approx_kl']:.4f}, "
              f"clip fraction {stats['clip_fraction']:.2f}", flush=True)
    print(f"{name}: trained {decisions} decisions in {args.updates} updates "
          f"({time.perf_counter() - start:.1f} s)", flush=True)
    return agent


def evaluate(agent: Agent, game: str, table: dict, episodes: int, seed: int) -> None:
    """The trained policy in seat ``player_0`` against uniformly random legal seats: the
    mean return of each (printed)."""
    env, rng = make_env(game, table), np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    with torch.no_grad():
        for episode in range(episodes):
            observations, _ = env.reset(seed=seed + episode)
            while env.agents:
                live = list(env.agents)
                mask = batchify(observations, "action_mask", live).bool()
                actions = torch.as_tensor([
                    int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in mask.numpy()])
                if live[0] == env.possible_agents[0] and mask[0].any():  # the policy's turn
                    obs = batchify(observations, "observation", live[:1]).float()
                    actions[0] = agent.get_action_and_value(obs, mask[:1])[0][0]
                observations, rewards, _, _, _ = env.step(unbatchify(actions, live))
                for name, reward in rewards.items():
                    totals[name] += reward
    others = np.mean([totals[a] for a in env.possible_agents[1:]]) / episodes
    print(f"{game} {', '.join(f'{k}={v}' for k, v in table.items())}: policy in player_0 "
          f"{totals[env.possible_agents[0]] / episodes:.2f} vs random seats {others:.2f} "
          f"(mean return over {episodes} games)", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--updates", type=int, default=20, help="PPO updates")
    parser.add_argument("--episodes", type=int, default=8, help="games per update")
    parser.add_argument("--epochs", type=int, default=3, help="passes over each batch")
    parser.add_argument("--minibatch-size", type=int, default=256, help="decisions")
    parser.add_argument("--learning-rate", type=float, default=3e-4, help="Adam's step")
    parser.add_argument("--gamma", type=float, default=1.0, help="discount")
    parser.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
    parser.add_argument("--clip-coef", type=float, default=0.2, help="PPO clip")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    parser.add_argument("--vf-coef", type=float, default=0.5, help="value loss weight")
    parser.add_argument("--eval-episodes", type=int, default=50,
                        help="games of the trained policy against random seats")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    tables = TABLES if args.game == "all" else [(args.game, table_of(args))]
    for game, table in tables:
        agent = train(game, table, args)
        evaluate(agent, game, table, args.eval_episodes, seed=10**6 + args.seed)


if __name__ == "__main__":
    main()
