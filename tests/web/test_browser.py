"""Real-browser tests: headless Chromium (Debian's ``chromium``) driven by Playwright
(the PyPI package, launched with the system browser: no browser download).

Every game is played to the end by clicking its drawn board with the mouse (never the
move list): Chocolates and Le Chocolat against ``random``, Chocolatiers (standard with the
analysis panel on, and classic) against ``greedy``, the Factory at 3 players against two
``greedy``. At every decision the board offers exactly the page's legal moves (each legal
action is on a clickable element, directly or behind a die or a wild to choose first, or a
rotation). The final scores are read off the page, the replay opened. A friend's seat link
opens that seat. Each game page and the lobby and replay pages are usable at 390 px wide
(nothing wider than the screen). Screenshots go to $CHOCO_WEB_SCREENSHOTS (``docs/img/web``
for the docs) or to the test's temporary folder.

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
    page: Any,
    base: str,
    env_id: str,
    seats: dict[int, str],
    seed: int,
    shot: Path | None = None,
    options: dict[str, str] | None = None,
) -> None:
    page.goto(base + "/")
    page.click(f"[data-env={env_id}]")
    page.wait_for_selector("#seat-1 option[value='bot:random']", state="attached", timeout=WAIT_MS)
    for name, value in (options or {}).items():
        page.select_option(f"#opt-{name}", value)
    page.wait_for_function(
        "!document.getElementById('bots-note').textContent.startsWith('Finding')",
        timeout=WAIT_MS,
    )
    page.wait_for_selector(
        f"#seat-{max(seats)} option[value='bot:random']", state="attached", timeout=WAIT_MS
    )
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


# ---------------------------------------------------------------- the drawn boards
#: what the board offers: every element that makes a move (``data-action``) or leads to
#: moves once chosen (``data-offers``: a die, the wilds, a place in every rotation)
SITUATION = """() => {
  const offers = new Set();
  for (const el of document.querySelectorAll('#board [data-action]')) offers.add(Number(el.dataset.action));
  for (const el of document.querySelectorAll('#board [data-offers]')) {
    for (const a of el.dataset.offers.split(' ')) if (a) offers.add(Number(a));
  }
  const chosen = document.querySelector('#board .fd-die.chosen');
  return {
    offers: [...offers].sort((a, b) => a - b),
    legal: [...document.querySelectorAll('#moves button[data-move]')].map(b => Number(b.dataset.move)).sort((a, b) => a - b),
    choosing: document.querySelector('#board .chosen, #board .armed') !== null,
    chosen: chosen ? chosen.dataset.pick : null,
    version: Number(document.body.dataset.version),
    items: [...document.querySelectorAll(
        '#board [data-action], #board [data-pick], #board [data-ui]')].map((el, i) => ({
      i, what: el.dataset.action !== undefined ? 'move' : el.dataset.pick !== undefined ? 'pick' : 'ui',
      kind: el.dataset.kind || el.dataset.pick || el.dataset.ui})),
  };
}"""
#: the page is ready for a decision: the board and the move list drawn (or the end)
READY = """() => document.querySelector('#final-scores') !== null || (
  document.querySelector('#board [data-action], #board [data-pick], #board [data-ui]') !== null &&
  document.querySelector('#moves button[data-move]') !== null)"""
ANALYSED = """() => document.querySelectorAll('#analysis-table tr').length ===
  document.querySelectorAll('#moves button[data-move]').length"""
CLICKABLE = "#board [data-action], #board [data-pick], #board [data-ui]"
STATION_MOVES = {"pair", "machine", "special", "master"}
#: how often each kind of board element is chosen (moves that end a game sooner weigh
#: more, so that a whole game stays short)
WEIGHTS = {
    "chocolatiers_v1": {
        "box": 12, "place": 5, "pay": 5, "discard": 2, "take": 3, "exchange": 0.5,
        "reserve": 0.5, "pass": 1, "wild": 1.5, "ui:wild": 0.3, "ui:rotate": 0.3,
    },
    "chocolate_factory_v2": {
        "pair": 10, "machine": 10, "special": 10, "master": 10, "pack": 1, "variety": 1,
        "pass": 0.6, "reroll": 0.2, "pick": 3, "pick:master": 1,
    },
}  # fmt: skip


def click_element(page: Any, selector: str, index: int) -> None:
    found = FIND_POINT.replace("#board [data-action]", selector)
    found = found.replace(
        "closest('[data-action]')", f"closest('{selector.replace('#board ', '')}')"
    )
    point = page.evaluate(found, index)
    assert point is not None, f"{selector} #{index} cannot be clicked"
    page.mouse.click(point["x"], point["y"])


def weight(env_id: str, item: dict[str, Any]) -> float:
    table = WEIGHTS[env_id]
    if item["what"] == "ui":
        return table.get(f"ui:{item['kind']}", 0.0)
    if item["what"] == "pick":
        return table["pick:master"] if item["kind"] == "master" else table["pick"]
    return table.get(item["kind"], 1.0)


def choose(env_id: str, now: dict[str, Any], rng: random.Random) -> Any:
    """A board element to click, at random but going on with a started choice: a move at
    a station once dice are chosen, the other die of a pair once one is chosen."""
    items = now["items"]
    ready = [x for x in items if x["what"] == "move" and x["kind"] in STATION_MOVES]
    if ready and rng.random() < 0.95:
        items = ready
    if now["chosen"] is not None and not ready:
        group = now["chosen"].split(":")[0]
        others = [x for x in items if x["what"] == "pick" and not x["kind"].startswith(group)]
        items = others or items
    return rng.choices(items, weights=[weight(env_id, x) for x in items])[0]


def play_drawn_board(
    page: Any, env_id: str, rng: random.Random, analysis: bool = False, shot: Path | None = None
) -> dict[str, int]:
    """Play the seat of ``page`` to the end by clicking its board; count what was clicked.
    ``shot``: a screenshot while a tile is placed (a place hovered: its preview shows)."""
    counts: dict[str, int] = {}
    moves = 0
    checked_rotation = False
    for _ in range(3000):
        page.wait_for_function(READY, timeout=WAIT_MS)
        if page.query_selector("#final-scores"):
            return counts
        if analysis:
            page.wait_for_function(ANALYSED, timeout=WAIT_MS)
        now = page.evaluate(SITUATION)
        if not now["choosing"]:
            # nothing chosen yet: the board offers exactly the page's legal moves
            assert now["offers"] == now["legal"]
        if any(x["kind"] == "place" for x in now["items"]) and (
            not checked_rotation or rng.random() < 0.5
        ):
            # rotate with the R key (once checked: the place's move changes with it)
            page.evaluate("document.activeElement && document.activeElement.blur()")
            first = page.get_attribute("#board [data-kind=place]", "data-action")
            offers = page.get_attribute("#board [data-kind=place]", "data-offers").split()
            page.keyboard.press("r")
            turned = page.get_attribute("#board [data-kind=place]", "data-action")
            if len(offers) == 4:  # every rotation of that place is legal
                assert turned != first and turned in offers
                checked_rotation = True
            now = page.evaluate(SITUATION)
            if shot is not None and len(now["legal"]) > 4:  # more than one place
                page.hover("#board [data-kind=place] >> nth=-1")
                page.screenshot(path=str(shot), full_page=True)
                shot = None
        item = choose(env_id, now, rng)
        name = f"{item['what']}:{item['kind']}"
        counts[name] = counts.get(name, 0) + 1
        click_element(page, CLICKABLE, item["i"])
        if item["what"] == "move":
            moves += 1
            page.wait_for_function(
                f"Number(document.body.dataset.version) > {now['version']}", timeout=WAIT_MS
            )
    raise AssertionError(f"the game did not end in 3000 clicks ({moves} moves)")


def finish_and_replay(page: Any, server: str, env_id: str, shots: Path, analysis: bool) -> None:
    """Compare the final scores on the page with the API's, screenshot, open the replay."""
    cells = page.locator("#final-scores td.score")
    shown = [float(cells.nth(i).inner_text()) for i in range(cells.count())]
    game_id = page.url.split("/play/")[1].split("?")[0]
    truth = page.request.get(f"{server}/api/games/{game_id}").json()
    assert truth["over"] and shown == truth["scores"]
    page.screenshot(path=str(shots / f"{env_id}.png"), full_page=True)
    page.click("#replay-link")
    page.wait_for_selector("#final-scores", timeout=WAIT_MS)
    page.keyboard.press("Home")
    page.wait_for_function("document.body.dataset.step === '0'", timeout=WAIT_MS)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.step === '1'", timeout=WAIT_MS)
    if analysis:  # the replay analyses the seat to act and marks the move it played
        page.click("#analysis-on")
        page.wait_for_selector("#analysis-table .played", timeout=WAIT_MS)


@pytest.mark.parametrize(
    ("edition", "analysis"), [("standard", True), ("classic", False)], ids=["standard", "classic"]
)
def test_play_a_whole_chocolatiers_game_by_clicking_the_board(
    page: Any, server: str, edition: str, analysis: bool, shots: Path
) -> None:
    options = {"edition": f'"{edition}"'}
    start_from_lobby(page, server, "chocolatiers_v1", {1: "bot:greedy"}, seed=4, options=options)
    page.wait_for_url(re.compile(r"/play/[^?]+\?token="), timeout=WAIT_MS)
    page.wait_for_selector("#analysis-kind option", state="attached", timeout=WAIT_MS)
    assert not page.is_checked("#analysis-on")  # off by default
    if analysis:
        page.select_option("#analysis-kind", "ppo")
        page.click("#analysis-on")
    shot = shots / "chocolatiers_v1_standard_placing.png" if analysis else None
    counts = play_drawn_board(page, "chocolatiers_v1", random.Random(edition), analysis, shot)
    # tiles were boxed, paid for and placed; cards taken, all by clicking the board
    for what in ("move:box", "move:pay", "move:place", "move:take"):
        assert counts.get(what, 0) > 0, (what, counts)
    if analysis:
        assert page.locator("#board .ct-sampler").count() == 2
    name = "chocolatiers_v1" if edition == "standard" else "chocolatiers_v1_classic"
    finish_and_replay(page, server, name, shots, analysis)


def test_play_a_whole_factory_game_at_3_players_by_clicking_the_board(
    page: Any, server: str, shots: Path
) -> None:
    seats = {1: "bot:greedy", 2: "bot:greedy"}
    start_from_lobby(
        page, server, "chocolate_factory_v2", seats, seed=6, options={"num_players": "3"}
    )
    page.wait_for_url(re.compile(r"/play/[^?]+\?token="), timeout=WAIT_MS)
    counts = play_drawn_board(page, "chocolate_factory_v2", random.Random(6))
    # pairs of dice went to stations after choosing both dice
    picks = sum(n for what, n in counts.items() if what.startswith(("pick:q:", "pick:i:")))
    assert counts.get("move:pair", 0) > 0 and picks >= 2 * counts["move:pair"], counts
    assert page.locator("#board .fd-player").count() == 3
    finish_and_replay(page, server, "chocolate_factory_v2", shots, False)


NARROW = {"width": 390, "height": 844}
#: no element of the page reaches past the screen's width
FITS = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.mark.parametrize(
    "env_id", ["chocolates_v0", "le_chocolat_v0", "chocolatiers_v1", "chocolate_factory_v2"]
)
def test_every_game_page_fits_a_390_px_screen(
    page: Any, server: str, env_id: str, shots: Path
) -> None:
    page.set_viewport_size(NARROW)
    r = page.request.post(
        f"{server}/api/games",
        data={"env_id": env_id, "options": {}, "seats": ["human", "random"], "seed": 3},
    )
    assert r.status == 201, r.text()
    page.goto(r.json()["seat_urls"][0])
    page.wait_for_selector("#board [data-action], #board [data-pick]", timeout=WAIT_MS)
    assert page.evaluate(FITS), page.evaluate("document.documentElement.scrollWidth")
    # the board comes first, the move list folds under it
    board = page.locator("#board").bounding_box()
    moves = page.locator("#moves").bounding_box()
    assert board["width"] <= NARROW["width"] and moves["y"] > board["y"]
    page.screenshot(path=str(shots / f"{env_id}_390.png"), full_page=True)


def test_the_lobby_and_a_replay_fit_a_390_px_screen(page: Any, server: str) -> None:
    page.set_viewport_size(NARROW)
    page.goto(server + "/")
    page.wait_for_selector("#seat-1 option[value='bot:random']", state="attached", timeout=WAIT_MS)
    assert page.evaluate(FITS)
    r = page.request.post(
        f"{server}/api/games",
        data={"env_id": "le_chocolat_v0", "options": {}, "seats": ["random", "random"], "seed": 1},
    )
    game = f"{server}/api/games/{r.json()['game_id']}"
    snap = page.request.get(game).json()
    while not snap["over"]:
        snap = page.request.get(f"{game}?since={snap['version']}&wait=10").json()
    page.goto(f"{server}/replay/{snap['record_id']}")
    page.wait_for_selector("#board", timeout=WAIT_MS)
    page.wait_for_function("document.body.dataset.step !== undefined", timeout=WAIT_MS)
    assert page.evaluate(FITS)
