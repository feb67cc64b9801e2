"""Fixtures of the web app's tests: an in-process client, a live server, Chromium.

Files the tests make go to a temporary folder; set ``CARDRL_WEB_RESULTS=results/web`` to
write the load test's latency report (``load.md``) and the browser screenshots there.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")

#: the Chromium the browser tests drive (Debian's package; Playwright cannot download here)
CHROMIUM = os.environ.get("CARDRL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


@pytest.fixture
def results_dir(tmp_path) -> Path:
    """Where evidence goes: ``$CARDRL_WEB_RESULTS`` if set, else a temporary folder."""
    target = os.environ.get("CARDRL_WEB_RESULTS")
    path = Path(target) if target else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_client(app, **kwargs):
    """A TestClient of ``app`` addressing it as ``http://localhost`` (a name the app
    answers to; TestClient's default ``testserver`` is refused, web.guard)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Using `httpx`")  # Starlette >= 1.x
        from starlette.testclient import TestClient
    return TestClient(app, base_url=kwargs.pop("base_url", "http://localhost"), **kwargs)


test_client.__test__ = False  # a helper, not a test


@pytest.fixture
def client():
    """A TestClient of a fresh app."""
    from web.app import create_app

    with test_client(create_app()) as c:
        yield c


@pytest.fixture(scope="module")
def live_server():
    """The app served by uvicorn on 127.0.0.1 for the module's tests."""
    from web.background import BackgroundServer

    with BackgroundServer() as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through Playwright; skips only when Chromium is missing."""
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        pytest.skip(f"Chromium is not installed ({CHROMIUM} missing): the browser tests need "
                    "it; on Debian: apt-get install -y chromium")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (the web extra)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
