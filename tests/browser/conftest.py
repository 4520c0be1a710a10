"""A real `streamlit run` server and Debian's Chromium, driven by Playwright. Never skipped."""

import tempfile

import pytest
from playwright.sync_api import sync_playwright

from tests.browser.harness import launch_chromium

# server_url, the real server, is in tests/conftest.py.


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        try:
            context = launch_chromium(p, profile)
        except RuntimeError as err:
            pytest.fail(str(err))
        yield context
        context.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    page.set_default_timeout(60_000)
    yield page
    page.close()
