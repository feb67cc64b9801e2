"""Abracadabra as the registry sees it: the one place the project's layers learn what this
game provides (:class:`envs.registry.Game`). Every piece is named as a ``"module:attribute"``
string, so reading this module imports no engine."""

from __future__ import annotations

from envs.registry import Game

GAME = Game(
    name="abracadabra",
    title="Abracadabra",
    config="envs.abracadabra.config:AbracadabraConfig",
    engine="envs.abracadabra.engine:AbracadabraEngine",
    env_module="envs.abracadabra_v1",
    deal_io="envs.abracadabra.deal_io",
    narration="envs.abracadabra.narration",
    deal_word="deal",
    episodes={"deal": "deal", "match": "match"},
    table_option="variant",
    tables={"variant": ("four", "three", "two_dummy", "two")},  # docs/rules.md section A
    table_key="{variant}",
    default_table={"variant": "four"},
    scene="envs.abracadabra.scene:scene",
    results="envs.abracadabra.scene",
    card_action="play",
    again_label="Deal again",
    fuzz_cases="envs.fuzz.abracadabra:fuzz_options",
    fuzz_checker="envs.fuzz.abracadabra:AbracadabraChecker",
    key_field="key",
    reference="heuristic",
    ladder=("random", "sure_tricks", "control", "heuristic", "policy"),
    rollouts=("heuristic", "random", "policy"),
    default_rollout="heuristic",
    network_actions=(0, 14),  # bid:0 .. bid:13 (C1; BID_OFFSET = 0)
    policy_config="configs/abracadabra_four.yaml",
    bench_tables=(("four", {"variant": "four"}), ("two_dummy", {"variant": "two_dummy"})),
    bench_targets={"float32": 12.0, "int8": 20.0},
    bench_agents=("heuristic", "sure_tricks", "expected_tricks", "control"),
    bench_configs=("configs/abracadabra_four.yaml",),
    demo=("configs/demo_abracadabra.yaml", {"variant": "four"}, ("heuristic", "random")),
    exploit_config="abracadabra_four_full.yaml",
    train_steps_per_second=2_500,
    screenshots={"table": ({"variant": "four"}, 4 + 1 + 9),
                 "play": ({"variant": "four"}, ("heuristic", "policy", "heuristic"), 6)},
)
