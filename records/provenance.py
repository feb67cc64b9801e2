"""Where a result came from: the machine, the library versions, the date and the command.

Every report the project writes (tournaments, benchmarks, the bidding benchmark, training
runs) heads its file with these, so that a figure can be traced to the run that made it.
"""

from __future__ import annotations

import datetime
import os
import platform
from importlib.metadata import PackageNotFoundError, version

import numpy as np


def package_version(dist: str) -> str:
    """The installed version of distribution ``dist``, or ``"not installed"``."""
    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    """The CPU's model name (from ``/proc/cpuinfo`` where there is one)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def usable_cores() -> int:
    """The cores this process may run on (its affinity), or all of them."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine_info() -> dict:
    """The machine and the versions that matter for speed and reproducibility."""
    info = {
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable_cores(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pettingzoo": package_version("pettingzoo"),
        "open_spiel": package_version("open_spiel"),
    }
    if hasattr(os, "getloadavg"):
        info["loadavg"] = tuple(round(x, 2) for x in os.getloadavg())
    return info


def machine_line() -> str:
    """One line for a report header: system, architecture, cores, Python and numpy."""
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )


def utc_now() -> str:
    """The current UTC time to the minute, as reports print it."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
