"""The browser board in a real headless browser (Chromium driven by selenium): load the page,
play a whole game by clicks (one checker dragged), ask for a hint, check what is shown.

Skips cleanly without selenium, Chromium or its driver (Debian: ``apt-get install chromium
chromium-driver``).  The screenshot goes to ``$BGENGINE_WEB_SCREENSHOT`` when that is set
(the README's ``docs/web-board.png`` is made so), else to the test's temporary folder.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from bgengine.decisions.engine import Engine  # noqa: E402
from bgengine.protocols.web.api import create_app  # noqa: E402

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                 if p), None)
DRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None,
                                reason="needs Chromium and chromedriver")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """``bgengine web`` on a free port, in a thread; its address."""
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(Engine("net"), seed=3), host="127.0.0.1",
                                        port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1200,820"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    try:
        driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    except Exception as exc:        # a browser that cannot start here: not this test's subject
        pytest.skip(f"Chromium does not start: {exc}")
    yield driver
    driver.quit()


def _state(driver) -> dict:
    """The table the page last drew (after waiting for the server's answer)."""
    deadline = time.monotonic() + 20
    while True:
        doc = driver.execute_script(
            "return document.body.dataset.busy === '1' ? null : window.bgState")
        if doc is not None:
            return doc
        assert time.monotonic() < deadline, "the page did not answer"
        time.sleep(0.02)


def _click(driver, element_id: str) -> None:
    driver.find_element("id", element_id).click()


def test_play_a_whole_game_by_clicks(server, browser, tmp_path):
    start = time.monotonic()
    browser.get(server + "/")
    view = _state(browser)
    assert browser.title.startswith("bgengine")
    # a 1-point match from the form: one whole game
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "new-kind")).select_by_value("match")
    length = browser.find_element("id", "new-length")
    length.clear()
    length.send_keys("1")
    _click(browser, "btn-new")
    time.sleep(0.1)
    view = _state(browser)
    assert view["match"]["length"] == 1 and view["match"]["game"] == 1
    hinted = shot = dragged = False
    for _ in range(600):
        phase = view["phase"]
        assert browser.find_element("id", "status").get_attribute("data-phase") == phase
        if phase == "match_over":
            break
        if phase == "roll":
            assert browser.find_element("id", "btn-roll").is_enabled()
            _click(browser, "btn-roll")
        elif phase == "take":
            _click(browser, "btn-take")
        elif view["move"]["complete"]:
            _click(browser, "btn-done")
        else:
            targets = view["move"]["targets"]
            source = max(targets, key=int)          # the checker farthest back
            dest = targets[source][0]
            if not dragged:                         # the first checker: dragged there
                from selenium.webdriver.common.action_chains import ActionChains

                before = len(view["move"]["steps"])
                ActionChains(browser).click_and_hold(
                    browser.find_element("id", f"point-{source}")).move_to_element(
                    browser.find_element("id", f"point-{dest}")).release().perform()
                view = _state(browser)
                assert len(view["move"]["steps"]) > before, "the drag moved no checker"
                dragged = True
                continue
            if not hinted or (not shot and len(view["log"]) > 8):
                _click(browser, "btn-hint")
                _state(browser)
                rows = browser.find_elements("css selector", "#hint tr")
                assert rows and rows[0].text.startswith("1. ")
                hinted = True
            _click(browser, f"point-{source}")
            assert "selected" in browser.find_element("id", f"point-{source}").get_attribute("class")
            assert "target" in browser.find_element("id", f"point-{dest}").get_attribute("class")
            if not shot and len(view["log"]) > 8:
                _screenshot(browser, tmp_path)
                shot = True
            _click(browser, f"point-{dest}")
        time.sleep(0.01)
        view = _state(browser)
    assert view["phase"] == "match_over", "the game did not end"
    assert hinted
    result = view["result"]
    status = browser.find_element("id", "status").text
    assert ("You win" if result["winner"] == "you" else "The engine wins") in status
    score = {side: browser.find_element("id", f"score-{side}").text for side in ("you", "engine")}
    assert score["you"] == f"you {view['match']['score']['you']}"
    assert score["engine"] == f"engine {view['match']['score']['engine']}"
    assert max(view["match"]["score"].values()) >= 1
    log = [li.text for li in browser.find_elements("css selector", "#log li")]
    assert any("wins" in line for line in log)
    assert browser.find_element("id", "btn-roll").is_enabled() is False
    # a new money session under the Jacoby rule, from the form
    Select(browser.find_element("id", "new-kind")).select_by_value("0")
    browser.find_element("id", "new-jacoby").click()
    _click(browser, "btn-new")
    time.sleep(0.1)
    view = _state(browser)
    assert view["match"]["length"] == 0 and view["match"]["jacoby"] and view["match"]["game"] == 1
    assert "money, Jacoby" in browser.find_element("id", "board").text
    assert time.monotonic() - start < 60


def _screenshot(driver, tmp_path: Path) -> None:
    path = Path(os.environ.get("BGENGINE_WEB_SCREENSHOT") or tmp_path / "web-board.png")
    path.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
