"""Four Aces as the registry sees it: the one place the project's layers learn what this
game provides (:class:`envs.registry.Game`). Every piece is named as a ``"module:attribute"``
string, so reading this module imports no engine."""

from __future__ import annotations

from envs.registry import Game

GAME = Game(
    name="four_aces",
    title="Four Aces",
    config="envs.four_aces.config:FourAcesConfig",
    engine="envs.four_aces.engine:FourAcesEngine",
    env_module="envs.four_aces_v0",
    deal_io="envs.four_aces.deal_io",
    narration="envs.four_aces.narration",
    deal_word="round",
    episodes={"deal": "round", "match": "match"},
    table_option="num_players",
    tables={"num_players": (3, 4, 5), "scoring": ("strict", "free")},  # G1, K3
    table_key="{num_players}p",
    default_table={"num_players": 4},
    scene="envs.four_aces.scene:scene",
    results="envs.four_aces.scene",
    card_action="discard",
    again_label="Play another",
    fuzz_cases="envs.fuzz.four_aces:fuzz_options",
    fuzz_checker="envs.fuzz.four_aces:FourAcesChecker",
    key_field="keys",
    reference="lookahead",
    ladder=("random", "greedy", "lookahead", "policy"),
    rollouts=("heuristic", "random", "greedy_known", "clairvoyant", "policy"),
    default_rollout="greedy_known",
    policy_config="configs/four_aces_4p.yaml",
    bench_tables=(("3p", {"num_players": 3}), ("5p", {"num_players": 5})),
    bench_targets={"float32": 8.0, "int8": 12.0},
    bench_agents=("heuristic", "lookahead", "greedy"),
    bench_configs=("configs/four_aces_4p.yaml",),
    demo=("configs/demo_four_aces.yaml", {"num_players": 4}, ("greedy", "random")),
    exploit_config="four_aces_4p.yaml",
    train_steps_per_second=1_200,
    screenshots={"table": ({"num_players": 4}, 10),
                 "play": ({"num_players": "4"}, ("policy", "heuristic", "greedy"), 5),
                 "replay": ({"num_players": "4"}, ("policy", "heuristic", "greedy", "random"))},
)
