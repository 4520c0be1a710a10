import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# One CPU thread per torch op, numba and BLAS call, as the server runs (scripts/run.sh, the image): two test processes
# on two cores, each with a thread pool per library, spent most of their time waiting on each other's threads (the
# MiniLM tests took 3x longer).
for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def server_url():
    """The lab served as the README serves it (labtools.server.serving), shared by the browser and load tests."""
    from labtools.server import serving

    with serving() as url:
        yield url


@pytest.fixture(scope="session")
def playwright():
    """Playwright, one per test process: a second sync_playwright() in a process whose first is still open fails
    ("using Playwright Sync API inside the asyncio loop"), so every test that drives Chromium starts from this one."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright):
    """Debian's Chromium on a fresh profile, shared by a process's browser tests."""
    import tempfile

    from labtools.browser import launch_chromium

    with tempfile.TemporaryDirectory() as profile:
        try:
            context = launch_chromium(playwright, profile)
        except RuntimeError as err:
            pytest.fail(str(err))
        yield context
        context.close()


@pytest.fixture(scope="session")
def screens(playwright):
    """Debian's Chromium without a profile, for pages on other screens (labtools.browser.screen_page)."""
    from labtools.browser import launch_browser

    try:
        browser = launch_browser(playwright)
    except RuntimeError as err:
        pytest.fail(str(err))
    yield browser
    browser.close()


@pytest.fixture
def page(request, browser):
    """A page on a laptop's window. Parametrized indirectly with a mode of labtools.browser.MODES (tests/browser's
    walks), a page in that mode instead: on its first screen (presenter mode at 1024 x 768, a phone), its links opened
    in that mode (presenter mode's ?present=true added to every goto), and after every move the layout checked on
    that screen (labtools.browser.check_after_moves). A mode of two screens opens each link on its second, the wider
    (1920 x 1080, a tablet), and checks each new view of the walk's page there (the page opened, each chapter the
    first time it shows) and again once narrowed to the first (labtools.browser.check_views_wide). On a laptop's
    window and in presenter mode the walk's first goto is followed by tests.browser.assert_accessible: axe-core on the
    page at its defaults, in the theme tests.browser.AXE_THEMES names (the page asked for it from the start); in
    presenter mode on the projector's 1024 x 768, once the page opened on the wider screen is narrowed to it."""
    from labtools.browser import MODES, check_after_moves, check_views_wide, opened, screen_link, screen_page

    mode = getattr(request, "param", None)  # None: not a walk, no check after each move
    if mode in (None, "laptop"):
        page = browser.new_page()
        page.set_default_timeout(60_000)
        if mode:
            check_after_moves(page, MODES[mode][:1])
            check_first = accessible_when_opened(page, mode)
            goto = page.goto

            def goto_then_check(url, **options):
                answer = goto(url, **options)
                check_first()
                return answer

            page.goto = goto_then_check
        yield page
        page.close()
        return
    with screen_page(request.getfixturevalue("screens"), mode) as page:
        goto, check_first = page.goto, accessible_when_opened(page, mode)

        def goto_in_mode(url, **options):
            with opened(page):
                answer = goto(screen_link(url, mode), **options)
            check_first()  # on the mode's first screen (presenter: a projector's 1024 x 768), once narrowed to it
            return answer

        page.goto = goto_in_mode
        check_after_moves(page, MODES[mode][:1])
        if len(MODES[mode]) > 1:
            from tests.browser import chapters_at

            narrow, wide = MODES[mode]
            check_views_wide(page, narrow, wide, first_chapter=lambda path: next(iter(chapters_at(path)), None))
        yield page


def accessible_when_opened(page, mode: str):
    """The check to run after each goto of a walk in `mode`: in a mode tests.browser.AXE_THEMES names, the page asks
    for that theme from now on, and after its first goto tests.browser.assert_accessible (axe-core on the page at its
    defaults, in that theme; every request the page made until then counted: none may leave the lab's server); after
    later gotos, and in other modes, nothing."""
    from tests.browser import AXE_THEMES, assert_accessible

    scheme = AXE_THEMES.get(mode)
    requested: list[str] = []
    if scheme is not None:
        page.emulate_media(color_scheme=scheme)
        page.on("request", lambda r: requested.append(r.url))
    checked: list[bool] = []

    def check_first() -> None:
        if scheme is not None and not checked:
            checked.append(True)
            assert_accessible(page, scheme, requested)

    return check_first


# Hypothesis: CI runs a fixed set of examples (derandomized, no example database); `HYPOTHESIS_PROFILE=long` by
# hand runs twenty times as many, new ones each time, and keeps the failures it found in .hypothesis/ (not in git).
# A test whose examples are slow takes a share of max_examples (tests/app/test_link_fuzz.py).
settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, print_blob=True, max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
settings.register_profile("long", deadline=None, print_blob=True, max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
