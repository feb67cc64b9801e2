"""Trained policies: the network, the checkpoint format (files of plain tensors, read without
running code), input features and delegated decisions.

torch is imported only when a network is built (:mod:`agents.policy.net`)."""
