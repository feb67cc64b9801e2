"""Trained policies: the network, checkpoints, input features and delegated decisions.

torch is imported only when a network is built (:mod:`agents.policy.net`)."""
