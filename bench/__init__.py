"""Throughput benchmarks of the engines, environments and scorers (``cardrl bench``)."""
