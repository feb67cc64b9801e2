"""Abracadabra agents: rule-based bidders and card play."""
