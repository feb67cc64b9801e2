"""SuperSuit and PettingZoo's ``turn_based_aec_to_parallel``: wrappers, parallel API, vector env.

1. SuperSuit's reward wrappers work on the AEC environment as on any PettingZoo game (here:
   points divided by 10, then clipped to [-1, 1]).
2. ``pettingzoo.utils.conversions.turn_based_aec_to_parallel`` turns the turn-based game
   into a ``ParallelEnv``: every live agent submits an action each step, only the agent to
   act (the one whose ``action_mask`` is not all zeros; also ``infos[a]["active_agent"]``)
   is applied, the others are ignored.
3. SuperSuit's ``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1`` make that a
   vector env with one slot per (table, seat), the layout parameter-sharing trainers use;
   the masks are still in the observations.

The table is chosen as ``env()`` chooses it: ``--game abracadabra --variant {four,three,
two_dummy,two}`` or ``--game four_aces --num-players {3,4,5}``.

Run: ``python examples/supersuit_parallel.py --game four_aces --num-players 5 --tables 2``
"""

from __future__ import annotations

import argparse

import numpy as np
import supersuit as ss
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows this docstring as written and each option's default."""


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game``, ``--variant``, ``--num-players``: the table, in ``env()``'s keywords."""
    parser.add_argument("--game", choices=["abracadabra", "four_aces"], default="abracadabra",
                        help="which game")
    parser.add_argument("--variant", choices=VARIANTS, default="two",
                        help="Abracadabra's table: abracadabra_v1.env(variant=...)")
    parser.add_argument("--num-players", type=int, choices=range(RANGES["num_players"][0],
                                                                 RANGES["num_players"][1] + 1),
                        default=3, help="Four Aces' table: four_aces_v0.env(num_players=...)")


def table_of(args: argparse.Namespace) -> dict:
    """The keyword of ``env()`` that chooses the table."""
    if args.game == "abracadabra":
        return {"variant": args.variant}
    return {"num_players": args.num_players}


def make_parallel(game: str, table: dict):
    """The AEC game with scaled, clipped rewards, as a turn-based ``ParallelEnv``."""
    aec = (abracadabra_v1 if game == "abracadabra" else four_aces_v0).env(**table)
    aec = ss.reward_lambda_v0(aec, lambda r: r / 10)
    aec = ss.clip_reward_v0(aec, lower_bound=-1, upper_bound=1)
    return turn_based_aec_to_parallel(aec)


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``; 0 where nothing is legal
    (a seat not to act: its action is ignored)."""
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(-1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--episodes", type=int, default=5, help="parallel-API episodes")
    parser.add_argument("--tables", type=int, default=2, help="tables in the vector env")
    parser.add_argument("--steps", type=int, default=200, help="vector env steps")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    table = table_of(args)

    # 2. The parallel API: a dict of actions in, dicts of everything out.
    env = make_parallel(args.game, table)
    for episode in range(args.episodes):
        observations, infos = env.reset(seed=args.seed + episode)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = {a: int(random_legal(rng, observations[a]["action_mask"][None])[0])
                       for a in env.agents}
            observations, rewards, terminations, truncations, infos = env.step(actions)
            for agent, reward in rewards.items():
                returns[agent] += reward
        print(f"episode {episode}: clipped returns {returns}")

    # 3. A SuperSuit vector env: slot k is seat k % seats of table k // seats.
    vec = ss.pettingzoo_env_to_vec_env_v1(make_parallel(args.game, table))
    vec = ss.concat_vec_envs_v1(vec, args.tables, num_cpus=0, base_class="gymnasium")
    observations, infos = vec.reset(seed=args.seed)
    finished = 0
    for _ in range(args.steps):
        actions = random_legal(rng, observations["action_mask"].astype(bool))
        observations, rewards, terminations, truncations, infos = vec.step(actions)
        finished += int(terminations.sum())
    print(f"vector env: {vec.num_envs} slots, {args.steps} steps, "
          f"{finished} seat-episodes finished")
    vec.close()


if __name__ == "__main__":
    main()
