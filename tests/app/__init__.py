"""AppTests of the pages; APP is the app's entry point they all start from."""

from pathlib import Path

APP = str(Path(__file__).resolve().parents[2] / "app.py")
