"""High Card's descriptor, registered with the same public call a real game's is
(:func:`envs.registry.register`), and its agent with :func:`agents.registry.register`.
Importing this module registers the game; ``CARDRL_GAMES=tests.plugin_game.game`` makes a
``cardrl`` process import it. It declares no fuzz reference, no search rollouts, no policy
and no demo: the layers that need them refuse in one line."""

from __future__ import annotations

from envs import registry
from envs.registry import Game

GAME = Game(
    name="high_card",
    title="High Card",
    config="tests.plugin_game.config:HighCardConfig",
    engine="tests.plugin_game.engine:HighCardEngine",
    env_module="tests.plugin_game.high_card_v0",
    deal_io="tests.plugin_game.deal_io",
    narration="tests.plugin_game.narration",
    deal_word="deal",
    episodes={"deal": "deal"},
    table_option="num_players",
    tables={"num_players": (2, 3, 4)},
    table_key="{num_players}p",
    default_table={"num_players": 3},
    scene="tests.plugin_game.scene:scene",
    reference="highest",
    ladder=("random", "highest"),
    bench_tables=(("3p", {"num_players": 3}),),
)



def register_game() -> bool:
    """Register High Card and its agent (once); True if this call registered it."""
    if GAME.name in registry.GAMES:
        return False
    registry.register(GAME)
    from agents.registry import register  # after the game is known (it checks the name)

    register(GAME.name, "highest", "tests.plugin_game.agents:HighestCard")
    return True


register_game()
