"""Real-browser tests: headless Chromium (Debian's ``chromium``) driven by Playwright
(the PyPI package, launched with the system browser: no browser download).

For the games whose boards are drawn (Chocolates, Le Chocolat): open the lobby, start a
game against ``random``, play it to the end by clicking the board (never the move list),
read the final scores off the page, open the replay and slide to the start. A friend's
seat link opens that seat. Chocolatiers and the Factory (text board for now) are opened
and played a few moves from the move list. Screenshots go to $CHOCO_WEB_SCREENSHOTS
(``docs/img/web`` for the README) or to the test's temporary folder.

Without Playwright or Chromium the tests skip, except under CI (CI=true), where they fail:
``.ci/run`` installs Chromium.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHOCO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: the longest a page may take to show the next thing (bots move in ~50 ms here)
WAIT_MS = 30_000


def need(what: str, ok: bool) -> None:
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing under CI; .ci/run installs it")
    pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("fastapi")
    uvicorn = pytest.importorskip("uvicorn")
    from choco_envs.web.app import create_app
    from choco_envs.web.sessions import Settings

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    records = tmp_path_factory.mktemp("records")
    app = create_app(Settings(records=str(records), bot_delay=0.05))
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
        timeout_keep_alive=30,
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=15)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = None
    try:
        from playwright import sync_api
    except ImportError:
        need("the playwright package", False)
    need(f"Chromium ({CHROMIUM})", shutil.which(CHROMIUM) is not None)
    assert sync_api is not None
    profile = tempfile.mkdtemp(prefix="choco-chromium-")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    page.close()
    assert not errors, f"the page raised: {errors}"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("CHOCO_WEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start_from_lobby(
    page: Any, base: str, env_id: str, seats: dict[int, str], seed: int, shot: Path | None = None
) -> None:
    page.goto(base + "/")
    page.click(f"[data-env={env_id}]")
    page.wait_for_selector("#seat-1 option[value='bot:random']", state="attached", timeout=WAIT_MS)
    for seat, value in seats.items():
        page.select_option(f"#seat-{seat}", value)
    page.fill("#seed", str(seed))
    if shot is not None:
        page.screenshot(path=str(shot), full_page=True)
    page.click("#start")


#: a point of the board element ``[data-action]`` number ``index`` where a click lands on
#: it (not on a neighbour drawn over it, e.g. a crossing cut line), or null
FIND_POINT = """(index) => {
  const el = document.querySelectorAll('#board [data-action]')[index];
  el.scrollIntoView({block: 'center', inline: 'center'});
  const box = el.getBoundingClientRect();
  for (const fy of [0.5, 0.3, 0.7, 0.15, 0.85]) {
    for (const fx of [0.5, 0.3, 0.7, 0.15, 0.85, 0.05, 0.95]) {
      const x = box.left + fx * box.width, y = box.top + fy * box.height;
      const hit = document.elementFromPoint(x, y);
      if (hit && hit.closest('[data-action]') === el) return {x, y};
    }
  }
  return null;
}"""


def click_board(page: Any, rng: random.Random) -> None:
    """Click a random clickable place of the board with the mouse."""
    count = page.locator("#board [data-action]").count()
    order = list(range(count))
    rng.shuffle(order)
    for index in order:
        point = page.evaluate(FIND_POINT, index)
        if point is not None:
            page.mouse.click(point["x"], point["y"])
            return
    raise AssertionError("no place of the board can be clicked")


def version(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.version || '-1'"))


@pytest.mark.parametrize("env_id", ["chocolates_v0", "le_chocolat_v0"])
def test_play_a_whole_game_by_clicking_the_board(
    page: Any, server: str, env_id: str, shots: Path
) -> None:
    lobby = shots / "lobby.png" if env_id == "chocolates_v0" else None
    start_from_lobby(page, server, env_id, {1: "bot:random"}, seed=3, shot=lobby)
    page.wait_for_url(re.compile(r"/play/[^?]+\?token="), timeout=WAIT_MS)
    rng = random.Random(env_id)
    clicks = 0
    while True:
        page.wait_for_selector("#board [data-action], #final-scores", timeout=WAIT_MS)
        if page.query_selector("#final-scores"):
            break
        assert page.locator("#moves button").count() > 0  # the move list is there too
        before = version(page)
        click_board(page, rng)
        clicks += 1
        page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=WAIT_MS)
        assert clicks < 200
    assert clicks > 3
    cells = page.locator("#final-scores td.score")
    shown = [float(cells.nth(i).inner_text()) for i in range(cells.count())]
    game_id = page.url.split("/play/")[1].split("?")[0]
    truth = page.request.get(f"{server}/api/games/{game_id}").json()
    assert truth["over"] and shown == truth["scores"]
    assert page.inner_text("#verdict")
    page.screenshot(path=str(shots / f"{env_id}.png"), full_page=True)

    page.click("#replay-link")
    page.wait_for_selector("#final-scores", timeout=WAIT_MS)
    steps = truth["step"]
    assert page.get_attribute("#slider", "max") == str(steps)
    page.keyboard.press("Home")
    page.wait_for_function("document.body.dataset.step === '0'", timeout=WAIT_MS)
    assert page.inner_text("#step-label") == f"move 0 of {steps}"
    page.select_option("#seat", "1")
    page.wait_for_function("location.search.includes('seat=1')", timeout=WAIT_MS)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.step === '1'", timeout=WAIT_MS)
    page.screenshot(path=str(shots / f"{env_id}_replay.png"), full_page=True)


def test_a_friend_joins_by_link(browser: Any, page: Any, server: str) -> None:
    start_from_lobby(page, server, "le_chocolat_v0", {1: "friend"}, seed=5)
    page.wait_for_selector("#created:not([hidden]) #link-1", timeout=WAIT_MS)
    friend_url = page.input_value("#link-1")
    my_url = page.input_value("#link-0")
    assert "token=" in friend_url and friend_url != my_url
    friend = browser.new_page()
    try:
        friend.goto(friend_url)
        friend.wait_for_function("document.body.dataset.version !== undefined", timeout=WAIT_MS)
        assert "you are player_1" in friend.inner_text("#where")
        assert friend.locator("#board [data-action]").count() == 0  # player_0 moves first
        page.goto(my_url)
        page.wait_for_selector("#board [data-action]", timeout=WAIT_MS)
        before = version(friend)
        click_board(page, random.Random(0))
        # the friend's page sees the move and now offers its own cuts
        friend.wait_for_function(
            f"Number(document.body.dataset.version) > {before}", timeout=WAIT_MS
        )
        friend.wait_for_selector("#board [data-action]", timeout=WAIT_MS)
    finally:
        friend.close()


@pytest.mark.parametrize("env_id", ["chocolatiers_v1", "chocolate_factory_v2"])
def test_a_text_board_game_opens_and_plays_from_the_move_list(
    page: Any, server: str, env_id: str, shots: Path
) -> None:
    start_from_lobby(page, server, env_id, {1: "bot:random"}, seed=2)
    page.wait_for_url(re.compile(r"/play/[^?]+\?token="), timeout=WAIT_MS)
    for _ in range(4):
        page.wait_for_selector("#moves button", timeout=WAIT_MS)
        before = version(page)
        page.locator("#moves button").first.click()
        page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=WAIT_MS)
    assert page.locator(".text-block.player").count() == 2
    page.wait_for_selector("#moves button", timeout=WAIT_MS)
    page.screenshot(path=str(shots / f"{env_id}.png"), full_page=True)
