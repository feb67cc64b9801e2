"""AgileRL: a DQN seat trained by curriculum and self-play (AgileRL's PettingZoo recipe).

The structure of AgileRL's PettingZoo tutorial ("AgileRL: Implementing DQN - Curriculum
Learning and Self-play", on Connect Four), with our env swapped in: an AgileRL ``DQN``
agent, AgileRL's ``ReplayBuffer`` of ``Transition`` tensordicts, first filled by random
play, epsilon-greedy exploration with a decay, a curriculum of lessons that change the
opponents (uniformly random legal play, then self-play against a frozen copy of the
agent), learning every ``learn_step`` decisions, and an evaluation against each lesson's
opponents. What our games change:

- Any number of seats: the learner takes one seat (a different one each episode, as the
  tutorial alternates first and second player), the lesson's opponent plays all others.
- A transition runs from one of the learner's decisions to its next one (or the end of
  the game): its reward is everything the seat received in between, the cumulative
  reward ``env.last()`` gives the seat when it is next to act; no board flipping (that
  augmentation is Connect Four's symmetry).
- The action mask goes to ``DQN.get_action(..., action_mask=...)``, as in the tutorial.

AgileRL 2.58 pins ``pettingzoo<1.27`` and ``tensordict==0.13`` (TorchRL 0.14 needs 0.14):
install it apart, docs/integrations.md "Libraries that conflict". Our env works with
PettingZoo 1.26 (only the id registry needs 1.27).

Run: ``python examples/agilerl_dqn.py --game four_aces --num-players 3 --episodes 300``;
``--game all`` trains a little on each of the seven tables in turn.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import torch
from agilerl.algorithms.dqn import DQN
from agilerl.components.data import Transition
from agilerl.components.replay_buffer import ReplayBuffer

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES

#: every table: (game, the env's own keyword for it)
TABLES = ([("abracadabra", {"variant": v}) for v in VARIANTS]
          + [("four_aces", {"num_players": p})
             for p in range(RANGES["num_players"][0], RANGES["num_players"][1] + 1)])
#: the curriculum: each lesson's opponent ("random": uniformly random legal play; "self":
#: a frozen copy of the agent as the lesson starts)
LESSONS = ("random", "self")


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


def make_env(game: str, table: dict):
    """The AEC game (the defaults of ``env()`` otherwise)."""
    module = abracadabra_v1 if game == "abracadabra" else four_aces_v0
    return module.env(**table)


def random_opponent(rng: np.random.Generator):
    """A uniformly random legal move."""
    return lambda observation: int(rng.choice(np.flatnonzero(observation["action_mask"])))


def dqn_opponent(agent: DQN, epsilon: float = 0.0):
    """The agent's greedy (or epsilon-greedy) move under the mask."""
    return lambda observation: int(agent.get_action(
        observation["observation"][None], epsilon=epsilon,
        action_mask=observation["action_mask"][None])[0])


def play_episode(env, learner: str, act, opponent, seed: int, reward_scale: float):
    """One game: ``act`` in seat ``learner``, ``opponent`` in every other. Returns the
    learner's transitions (obs, action, reward, next_obs, done) and every seat's return."""
    env.reset(seed=seed)
    transitions, pending = [], None
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        returns[agent] += reward
        done = termination or truncation
        if "illegal_action" in info:
            raise RuntimeError(f"an illegal action was played: {info['illegal_action']}")
        if agent == learner and pending is not None:
            transitions.append((*pending, reward * reward_scale, observation["observation"],
                                done))
            pending = None
        if done:
            env.step(None)
            continue
        action = act(observation) if agent == learner else opponent(observation)
        if agent == learner:
            pending = (observation["observation"], action)
        env.step(action)
    return transitions, returns


def store(memory: ReplayBuffer, transitions: list) -> None:
    """Add the transitions to AgileRL's buffer as one batch of ``Transition``."""
    if not transitions:
        return
    obs, action, reward, next_obs, done = (np.array(x) for x in zip(*transitions, strict=True))
    memory.add(Transition(obs=obs, action=action, reward=reward.astype(np.float32),
                          next_obs=next_obs, done=done.astype(np.float32),
                          batch_size=[len(transitions)]).to_tensordict())


def evaluate(env, agent: DQN, opponent, episodes: int, seed: int) -> tuple[float, float]:
    """The greedy agent in each seat in turn against ``opponent``: its mean return and the
    other seats' mean return."""
    mine, others = [], []
    for episode in range(episodes):
        learner = env.possible_agents[episode % len(env.possible_agents)]
        _, returns = play_episode(env, learner, dqn_opponent(agent), opponent,
                                  seed + episode, 1.0)
        mine.append(returns[learner])
        others.extend(r for a, r in returns.items() if a != learner)
    return float(np.mean(mine)), float(np.mean(others))


def train(game: str, table: dict, args) -> DQN:
    """The curriculum on one table: fill the buffer, then each lesson of :data:`LESSONS`."""
    env, rng = make_env(game, table), np.random.default_rng(args.seed)
    seats = env.possible_agents
    agent = DQN(env.observation_space(seats[0])["observation"], env.action_space(seats[0]),
                lr=args.lr, batch_size=args.batch_size, learn_step=args.learn_step,
                gamma=args.gamma, tau=args.tau, double=True)
    memory = ReplayBuffer(max_size=args.memory)
    name = f"{game} {', '.join(f'{k}={v}' for k, v in table.items())}"
    start, seed, episode = time.perf_counter(), args.seed, 0
    while len(memory) < min(args.warm_up, args.memory):  # the tutorial's warm-up fill
        transitions, _ = play_episode(env, seats[episode % len(seats)], random_opponent(rng),
                                      random_opponent(rng), seed, args.reward_scale)
        store(memory, transitions)
        seed, episode = seed + 1, episode + 1
    print(f"{name}: replay buffer warmed up with {len(memory)} transitions", flush=True)
    epsilon, decisions = args.eps_start, 0
    for lesson in LESSONS:
        opponent = (random_opponent(rng) if lesson == "random"
                    else dqn_opponent(copy.deepcopy(agent)))  # the frozen self of self-play
        for episode in range(args.episodes):
            transitions, _ = play_episode(env, seats[episode % len(seats)],
                                          dqn_opponent(agent, epsilon), opponent, seed,
                                          args.reward_scale)
            store(memory, transitions)
            seed += 1
            for _ in range(len(transitions)):  # learn every learn_step decisions
                decisions += 1
                if decisions % agent.learn_step == 0 and len(memory) >= agent.batch_size:
                    agent.learn(memory.sample(agent.batch_size))
            epsilon = max(args.eps_end, epsilon * args.eps_decay)
        mine, others = evaluate(env, agent, opponent, args.eval_episodes, 10**6 + seed)
        print(f"{name}: lesson {lesson}: {args.episodes} episodes, {decisions} decisions, "
              f"epsilon {epsilon:.2f}; greedy agent {mine:.2f} vs its opponents {others:.2f} "
              f"(mean return over {args.eval_episodes} games)", flush=True)
    print(f"{name}: trained {decisions} decisions ({time.perf_counter() - start:.1f} s)",
          flush=True)
    return agent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    for flag, default, meaning in (  # the numbers: each option's type is its default's
            ("--episodes", 200, "episodes per lesson"),
            ("--eval-episodes", 40, "after each lesson"),
            ("--warm-up", 1_000, "transitions of random play before learning"),
            ("--memory", 50_000, "replay buffer size"),
            ("--batch-size", 64, "DQN batch"),
            ("--learn-step", 4, "decisions per update"),
            ("--lr", 1e-4, "Adam's step"),
            ("--gamma", 0.99, "discount"),
            ("--tau", 0.01, "target network update"),
            ("--eps-start", 1.0, "first epsilon"),
            ("--eps-end", 0.1, "last epsilon"),
            ("--eps-decay", 0.995, "per episode"),
            ("--reward-scale", 0.1, "rewards are points; the Q-values learn them scaled"),
            ("--seed", 0, "seed of every random draw")):
        parser.add_argument(flag, type=type(default), default=default, help=meaning)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    tables = TABLES if args.game == "all" else [(args.game, table_of(args))]
    for game, table in tables:
        train(game, table, args)


if __name__ == "__main__":
    main()
