"""Screenshots of a live class for docs/workshop.md: the leader's projector with the room's answers, and a learner's
phone with the bar naming the leader's view.

    .venv/bin/python scripts/class_screenshots.py      # docs/img/class-leader-en-present.webp, class-learner-en-phone.webp

It serves the lab on a free port (labtools.server.serving, the class in memory) and drives Debian's Chromium as the
browser tests do: the leader (presenter mode, 1920 x 1080) starts a class on the text-to-tokens page, three learners
(phones) join by the link and answer its first exercise, the leader shows the positional-encoding page at d_model
64. Needs what scripts/screenshots.py needs; CI does not run it.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from labtools.browser import SCREENS, launch_browser, new_context, wait_until_idle  # noqa: E402
from labtools.server import serving  # noqa: E402

OUT = ROOT / "docs" / "img"


def webp(png: bytes, path: Path) -> None:
    Image.open(io.BytesIO(png)).save(path, "WEBP", quality=72)
    print(path.relative_to(ROOT))


def main() -> int:
    expect.set_options(timeout=120_000)
    with serving() as url, sync_playwright() as p:
        browser = launch_browser(p)
        leader = new_context(browser, **SCREENS["presenter-1920"]["context"]).new_page()
        leader.set_default_timeout(120_000)
        leader.goto(f"{url}/text_to_tokens")
        wait_until_idle(leader)
        leader.get_by_role("button", name="Class").click()
        leader.get_by_role("button", name="Start a class").click()
        expect(leader.get_by_text("Leading class")).to_be_visible()
        code = leader.get_by_test_id("stSidebar").locator("strong").first.inner_text()
        learners = []
        for typed in ("6", "6", "4"):
            page = new_context(browser, **SCREENS["phone"]["context"]).new_page()
            page.set_default_timeout(120_000)
            page.goto(f"{url}/text_to_tokens?class={code}")
            box = page.get_by_label("Your answer").first
            box.fill(typed)
            box.press("Enter")
            page.get_by_role("button", name="Check").first.click()
            expect(page.get_by_text("Right." if typed == "6" else "Not yet").first).to_be_visible()
            learners.append(page)
        leader.goto(f"{url}/text_to_tokens?present=true&class={code}")
        expect(leader.get_by_text("The room: 3 of 3 answered, 2 right.").first).to_be_visible()
        room = leader.get_by_text("The room:").first  # its exercise's box: the question, the room's counts and chart
        panel = room.locator("xpath=ancestor::div[@data-testid='stVerticalBlock'][2]")
        panel.scroll_into_view_if_needed()
        leader.wait_for_timeout(1500)  # the chart drawn
        webp(panel.screenshot(), OUT / "class-leader-en-present.webp")

        leader.goto(f"{url}/positional_encoding?pe_d_model=64&class={code}")
        leader.get_by_role("button", name="Show this to the class").click()
        expect(leader.get_by_text("The class now sees this view.")).to_be_visible()
        phone = learners[0]
        bar = phone.get_by_text("The leader is showing: Positional encoding, d_model 64")
        expect(bar).to_be_visible()
        bar.evaluate("e => e.scrollIntoView({block: 'center'})")  # the bar, above the page the learner scrolled
        phone.wait_for_timeout(1000)
        webp(phone.screenshot(), OUT / "class-learner-en-phone.webp")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
