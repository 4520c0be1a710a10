"""A real `streamlit run` server and Debian's Chromium, driven by Playwright. Never skipped.

The server (server_url) and the browser (playwright, browser, page) are tests/conftest.py's: the tests of
tests/deploy/ drive Chromium too, and a process can hold only one Playwright at a time.
"""
