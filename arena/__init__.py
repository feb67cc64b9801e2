"""Evaluation: duplicate-deal tournaments, statistics and ratings, the bidding benchmark and
terminal play against agents."""
