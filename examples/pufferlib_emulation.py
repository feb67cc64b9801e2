"""PufferLib (pufferlib-core 3.0): PufferLib's PettingZoo emulation and vector envs.

PufferLib's documented recipe for a PettingZoo game: ``pufferlib.emulation.
PettingZooPufferEnv`` over a ``ParallelEnv`` packs each agent's observation (here the
dict ``{"observation", "action_mask"}``) into one flat ``uint8`` row, its layout in
``env.emulated``; ``pufferlib.vector.make`` stacks tables into one batch of rows (row k is
seat k % P of table k // P) and resets finished tables itself; ``pufferlib.pytorch.
nativize_tensor`` reads the fields back from a batch of rows. Our games are turn-based, so
the ``ParallelEnv`` is ``turn_based_aec_to_parallel(env())``: only the seat whose mask is
not all zeros acts, the others' actions are ignored.

1. One table, PufferLib's random loop as its docs write it, actions sampled *without* the
   mask: the game ends at the first illegal action, -1 to the player who made it (the
   default of ``env()``, PettingZoo's classic convention).
2. A masked random loop over ``pufferlib.vector.make(..., backend=Serial)``: the masks
   read back with ``nativize_tensor``; games finish and restart.

pufferlib-core 3.0 pins ``torch==2.9.0`` (a CUDA build by default): install it apart,
docs/integrations.md "Libraries that conflict".

Run: ``python examples/pufferlib_emulation.py --game four_aces --tables 4 --steps 500``;
``--game all`` runs every table.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pufferlib
import pufferlib.emulation
import pufferlib.pytorch
import pufferlib.vector
import torch
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES
from envs.pettingzoo_base import IllegalActionWarning

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


def puffer_env(game: str, table: dict, buf=None, seed: int = 0):
    """One table as PufferLib's emulated PettingZoo env (the defaults of ``env()``)."""
    module = abracadabra_v1 if game == "abracadabra" else four_aces_v0
    return pufferlib.emulation.PettingZooPufferEnv(
        env=turn_based_aec_to_parallel(module.env(**table)), buf=buf, seed=seed)


def unmasked_random_games(game: str, table: dict, games: int, seed: int) -> None:
    """PufferLib's random loop: every agent samples from its action space, no mask."""
    env = puffer_env(game, table)
    lengths, illegal = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IllegalActionWarning)  # expected here, every game
        for g in range(games):
            env.reset(seed=seed + g)
            for agent in env.possible_agents:
                env.action_space(agent).seed(seed + g)
            steps = 0
            while not env.done:
                _, _, _, _, infos = env.step(
                    {a: env.action_space(a).sample() for a in env.possible_agents})
                steps += 1
            lengths.append(steps)
            illegal += any("illegal_action" in i for i in infos.values())
    print(f"unmasked random play: {games} games, {np.mean(lengths):.1f} steps each, "
          f"{illegal} ended by an illegal action (-1 to its player)", flush=True)


def masked_vector_rollout(game: str, table: dict, tables: int, steps: int, seed: int) -> None:
    """Masked random actions over ``tables`` tables in PufferLib's serial vector env."""
    vec = pufferlib.vector.make(puffer_env, env_kwargs={"game": game, "table": table},
                                backend=pufferlib.vector.Serial, num_envs=tables, seed=seed)
    native = pufferlib.pytorch.nativize_dtype(vec.driver_env.emulated)
    rng = np.random.default_rng(seed)
    observations, _ = vec.reset(seed=seed)
    seats, finished, acted = vec.driver_env.num_agents, 0, 0
    for _ in range(steps):
        fields = pufferlib.pytorch.nativize_tensor(torch.from_numpy(observations), native)
        masks = fields["action_mask"].numpy().astype(bool)
        # one uniformly random legal action per row; 0 for the seats not to act (ignored)
        actions = np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)
        acted += int(masks.any(axis=1).sum())
        observations, rewards, terminals, truncations, infos = vec.step(actions)
        finished += int(terminals.reshape(tables, seats).all(axis=1).sum())
    print(f"vector env: {tables} tables, {vec.num_agents} rows, {steps} steps, "
          f"{acted} decisions, {finished} games finished", flush=True)
    vec.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--games", type=int, default=5, help="unmasked random games")
    parser.add_argument("--tables", type=int, default=2, help="tables in the vector env")
    parser.add_argument("--steps", type=int, default=200, help="vector env steps")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)
    tables = TABLES if args.game == "all" else [(args.game, table_of(args))]
    for game, table in tables:
        print(f"== {game} {', '.join(f'{k}={v}' for k, v in table.items())} "
              f"(pufferlib-core {pufferlib.__version__})", flush=True)
        unmasked_random_games(game, table, args.games, args.seed)
        masked_vector_rollout(game, table, args.tables, args.steps, args.seed)


if __name__ == "__main__":
    main()
