"""TorchRL: the multi-agent PPO tutorial (MAPPO / IPPO), with our env swapped in.

TorchRL's tutorial "Multi-Agent Reinforcement Learning (PPO) with TorchRL"
(``tutorials/sphinx-tutorials/multiagent_ppo.py``, on VMAS Navigation) in its order:
environment and ``RewardSum`` transform, ``check_env_specs``, a policy and a critic that
are ``MultiAgentMLP`` s shared by the agents (``share_params=True``; ``--mappo`` makes
the critic centralised), a collector (``SyncDataCollector``, ``Collector`` since TorchRL
0.14), a ``ReplayBuffer`` over a
``LazyTensorStorage`` sampled without replacement, ``ClipPPOLoss`` with GAE, then the loop:
collect, compute advantages, a few epochs of minibatch updates, log the mean episode
reward. What our env changes, and nothing else:

- The environment is ``PettingZooWrapper(env(), use_mask=True, categorical_actions=True)``
  with every seat in one group, ``"players"`` (the tutorial's ``"agents"``). The actions
  are discrete: the policy's ``MultiAgentMLP`` outputs logits and the actor samples a
  ``MaskedCategorical`` under ``("players", "action_mask")`` (the tutorial's continuous
  ``TanhNormal`` has nothing to mask). Our observation stays nested:
  ``("players", "observation", "observation")``.
- PettingZoo gives every group its own ``done`` / ``terminated``, so the tutorial's step
  that expands VMAS's global ``done`` to the agents is not needed.
- The game is turn-based: at each step only the seat with ``("players", "mask")`` acts,
  the others' sampled actions are ignored by the env (TorchRL gives them an all-true
  action mask); the tutorial's loss, kept as it is, still counts them.

Run: ``python examples/torchrl_marl_ppo.py --game four_aces --num-players 4 --iterations 5``
"""

from __future__ import annotations

import argparse

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector  # the tutorial's SyncDataCollector (renamed in 0.14)
from torchrl.data.replay_buffers import ReplayBuffer
from torchrl.data.replay_buffers.samplers import SamplerWithoutReplacement
from torchrl.data.replay_buffers.storages import LazyTensorStorage
from torchrl.envs import RewardSum, TransformedEnv
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MaskedCategorical, MultiAgentMLP, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss, ValueEstimators

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES

GROUP = "players"  #: the one group every seat is in
OBSERVATION = (GROUP, "observation", "observation")  #: our dict's vector, nested


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--frames-per-batch", type=int, default=1_000,
                        help="env steps collected per iteration")
    parser.add_argument("--iterations", type=int, default=5, help="collect-and-train rounds")
    parser.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    parser.add_argument("--minibatch-size", type=int, default=200, help="steps per update")
    parser.add_argument("--lr", type=float, default=3e-4, help="Adam's step")
    parser.add_argument("--max-grad-norm", type=float, default=1.0, help="gradient clip")
    parser.add_argument("--clip-epsilon", type=float, default=0.2, help="PPO clip")
    parser.add_argument("--gamma", type=float, default=0.99, help="discount")
    parser.add_argument("--lmbda", type=float, default=0.9, help="GAE lambda")
    parser.add_argument("--entropy-eps", type=float, default=1e-4, help="entropy bonus")
    parser.add_argument("--mappo", action="store_true",
                        help="a centralised critic (MAPPO); IPPO otherwise")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    # Environment: one table, every seat in the group "players"; episode rewards summed.
    aec = (abracadabra_v1 if args.game == "abracadabra" else four_aces_v0).env(
        **table_of(args))
    seats = list(aec.possible_agents)
    env = PettingZooWrapper(env=aec, use_mask=True, categorical_actions=True, seed=args.seed,
                            group_map={GROUP: seats})
    env = TransformedEnv(env, RewardSum(in_keys=[(GROUP, "reward")],
                                        out_keys=[(GROUP, "episode_reward")]))
    check_env_specs(env)
    observation_size = env.observation_spec[OBSERVATION].shape[-1]
    num_actions = env.full_action_spec[GROUP, "action"].space.n

    # Policy: one MLP shared by the seats, its logits sampled under the legal mask.
    policy_net = MultiAgentMLP(
        n_agent_inputs=observation_size, n_agent_outputs=num_actions, n_agents=len(seats),
        centralised=False, share_params=True, depth=2, num_cells=256,
        activation_class=nn.Tanh)
    policy_module = TensorDictModule(policy_net, in_keys=[OBSERVATION],
                                     out_keys=[(GROUP, "logits")])
    policy = ProbabilisticActor(
        module=policy_module, spec=env.full_action_spec_unbatched[GROUP, "action"],
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")], distribution_class=MaskedCategorical,
        return_log_prob=True, log_prob_key=(GROUP, "sample_log_prob"))

    # Critic: per seat (IPPO) or from every seat's observation (MAPPO).
    critic_net = MultiAgentMLP(
        n_agent_inputs=observation_size, n_agent_outputs=1, n_agents=len(seats),
        centralised=args.mappo, share_params=True, depth=2, num_cells=256,
        activation_class=nn.Tanh)
    critic = TensorDictModule(critic_net, in_keys=[OBSERVATION],
                              out_keys=[(GROUP, "state_value")])

    collector = Collector(env, policy, frames_per_batch=args.frames_per_batch,
                                  total_frames=args.frames_per_batch * args.iterations)
    replay_buffer = ReplayBuffer(storage=LazyTensorStorage(args.frames_per_batch),
                                 sampler=SamplerWithoutReplacement(),
                                 batch_size=args.minibatch_size)

    loss_module = ClipPPOLoss(actor_network=policy, critic_network=critic,
                              clip_epsilon=args.clip_epsilon, entropy_coeff=args.entropy_eps,
                              normalize_advantage=False)
    loss_module.set_keys(reward=(GROUP, "reward"), action=(GROUP, "action"),
                         sample_log_prob=(GROUP, "sample_log_prob"),
                         value=(GROUP, "state_value"), done=(GROUP, "done"),
                         terminated=(GROUP, "terminated"))
    loss_module.make_value_estimator(ValueEstimators.GAE, gamma=args.gamma, lmbda=args.lmbda)
    gae = loss_module.value_estimator
    optim = torch.optim.Adam(loss_module.parameters(), args.lr)

    for iteration, tensordict_data in enumerate(collector):
        with torch.no_grad():  # advantages and value targets, written into the batch
            gae(tensordict_data, params=loss_module.critic_network_params,
                target_params=loss_module.target_critic_network_params)
        replay_buffer.extend(tensordict_data.reshape(-1))
        for _ in range(args.epochs):
            for _ in range(args.frames_per_batch // args.minibatch_size):
                loss_vals = loss_module(replay_buffer.sample())
                loss_value = (loss_vals["loss_objective"] + loss_vals["loss_critic"]
                              + loss_vals["loss_entropy"])
                loss_value.backward()
                torch.nn.utils.clip_grad_norm_(loss_module.parameters(), args.max_grad_norm)
                optim.step()
                optim.zero_grad()
        collector.update_policy_weights_()

        done = tensordict_data.get(("next", GROUP, "done"))
        finished = tensordict_data.get(("next", GROUP, "episode_reward"))[done]
        mean = f"{finished.mean().item():.2f}" if finished.numel() else "n/a"
        print(f"iteration {iteration}: {tensordict_data.numel()} steps, "
              f"{int(tensordict_data.get(('next', 'done')).sum())} games finished, "
              f"episode reward mean {mean}, loss {loss_value.item():.3f}", flush=True)
    collector.shutdown()


if __name__ == "__main__":
    main()
