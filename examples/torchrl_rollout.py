"""TorchRL: our AEC games through ``PettingZooWrapper(use_mask=True)``, a masked rollout.

TorchRL's documented recipe for turn-based (AEC) PettingZoo games: ``use_mask=True`` adds,
per group, ``mask`` (which seat acts now) and ``action_mask`` (its legal actions; TorchRL
also narrows the action spec to it). Here every seat shares one group, ``"players"``, so
one network scores the actions of all seats at once, and a ``MaskedCategorical`` over its
logits never samples an illegal action. A batch of tables is a ``SerialEnv`` of wrappers.

Run: ``python examples/torchrl_rollout.py --game abracadabra --variant four --tables 2``
"""

from __future__ import annotations

import argparse

import torch
from tensordict.nn import TensorDictModule
from torchrl.envs import SerialEnv
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor

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


def make_env(game: str, table: dict, seed: int = 0) -> PettingZooWrapper:
    """One table as a TorchRL env; all seats in the group ``"players"``."""
    aec = (abracadabra_v1 if game == "abracadabra" else four_aces_v0).env(**table)
    seats = list(aec.possible_agents)
    return PettingZooWrapper(env=aec, use_mask=True, categorical_actions=True, seed=seed,
                             group_map={"players": seats})


def masked_policy(env: PettingZooWrapper) -> ProbabilisticActor:
    """An (untrained) MLP over each seat's observation, sampled through the legal-action
    mask. Our observation dict keeps ``observation`` nested under ``observation``."""
    spec = env.full_observation_spec["players", "observation", "observation"]
    num_actions = env.full_action_spec["players", "action"].space.n
    net = torch.nn.Sequential(torch.nn.Linear(spec.shape[-1], 128), torch.nn.Tanh(),
                              torch.nn.Linear(128, num_actions))
    logits = TensorDictModule(net, in_keys=[("players", "observation", "observation")],
                              out_keys=[("players", "logits")])
    return ProbabilisticActor(
        logits, in_keys={"logits": ("players", "logits"), "mask": ("players", "action_mask")},
        out_keys=[("players", "action")], distribution_class=MaskedCategorical,
        return_log_prob=True, log_prob_key=("players", "log_prob"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--tables", type=int, default=2, help="tables in the SerialEnv batch")
    parser.add_argument("--steps", type=int, default=200, help="rollout length (AEC steps)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    table = table_of(args)
    env = make_env(args.game, table, args.seed)
    policy = masked_policy(env)

    # One table, one whole game: the rollout stops when the game is over.
    episode = env.rollout(args.steps, policy=policy, break_when_any_done=True)
    acting = episode["players", "mask"]  # [T, seats]: who acted at each step
    chosen = episode["players", "action"][acting]
    legal = episode["players", "action_mask"][acting].gather(-1, chosen[:, None])
    assert bool(legal.all()), "the masked policy chose an illegal action"
    returns = episode["next", "players", "reward"].sum(0).squeeze(-1)
    print(f"one game: {episode.batch_size[0]} steps, returns per seat {returns.tolist()}")

    # A batch of tables stepped together; finished tables reset themselves.
    tables = SerialEnv(args.tables, lambda: make_env(args.game, table))
    tables.set_seed(args.seed)
    batch = tables.rollout(args.steps, policy=policy, break_when_any_done=False)
    games = int(batch["next", "done"].sum())
    print(f"{args.tables} tables: {args.steps} steps each, {games} games finished")
    tables.close()


if __name__ == "__main__":
    main()
