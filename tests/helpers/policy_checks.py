"""Shared check for the policy tests: two agents act identically and legally in play."""

import numpy as np


def assert_same_legal_actions(engine, expected_agent, other_agent, steps: int) -> None:
    """Play ``steps`` batch steps with ``expected_agent``; ``other_agent`` must choose the
    same action for every live game, and every action must be legal."""
    for _ in range(steps):
        obs, masks = engine.observe(), engine.legal_action_mask()
        live = ~engine.game_over
        if not live.any():
            return
        expected = expected_agent.act_batch(obs[live], masks[live])
        np.testing.assert_array_equal(other_agent.act_batch(obs[live], masks[live]), expected)
        assert masks[live][np.arange(live.sum()), expected].all()
        actions = np.zeros(engine.batch_size, dtype=np.int64)
        actions[live] = expected
        engine.step(actions, active=live)
