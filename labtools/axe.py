"""axe-core, the accessibility checker, pinned and fetched from npm; run in a Playwright page.

`python -m labtools.axe` (scripts/test.sh runs it) downloads the pinned tarball once into .axe-core/ and checks
it against npm's sha512 integrity, so CI needs neither node nor npm.
"""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import time
import urllib.request
from pathlib import Path

VERSION = "4.14.1"
URL = f"https://registry.npmjs.org/axe-core/-/axe-core-{VERSION}.tgz"
# npm's dist.integrity for that tarball (https://registry.npmjs.org/axe-core/4.14.1)
INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
SCRIPT = Path(__file__).resolve().parents[1] / ".axe-core" / VERSION / "axe.min.js"
FAILING = ("serious", "critical")  # axe's impacts that fail a test; "minor" and "moderate" are reported only


def fetch() -> Path:
    """Download the pinned axe-core tarball (unless already there), check its integrity, keep axe.min.js."""
    if SCRIPT.exists():
        return SCRIPT
    for attempt in range(3):  # a registry hiccup should not fail CI
        try:
            with urllib.request.urlopen(URL, timeout=60) as response:
                tarball = response.read()
            break
        except OSError:
            if attempt == 2:
                raise
            time.sleep(5)  # a registry hiccup: a moment before the next try
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if digest != INTEGRITY:
        raise RuntimeError(f"{URL}: integrity {digest} is not the pinned {INTEGRITY}")
    with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
        member = tar.extractfile("package/axe.min.js")
        if member is None:
            raise RuntimeError(f"{URL}: no package/axe.min.js in the tarball")
        script = member.read()
    SCRIPT.parent.mkdir(parents=True, exist_ok=True)
    SCRIPT.write_bytes(script)
    return SCRIPT


# Every text is checked, a disabled control's too: WCAG 1.4.3 exempts inactive controls, but their labels still name
# the settings a learner reads, on a projector as on a laptop (ui/theme.css gives them 4.5:1). An earlier exemption
# here let the input layer's disabled d_model label through at 2.57:1.
RUN = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations"""


def run_axe(page) -> list[dict]:
    """axe's violations on the page as it is now (WCAG 2 A and AA rules and axe's best practices)."""
    if not SCRIPT.exists():
        raise RuntimeError(f"{SCRIPT} is missing: run `.venv/bin/python -m labtools.axe` (scripts/test.sh does)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(SCRIPT))
    return page.evaluate(RUN)


def failing(violations: list[dict]) -> list[dict]:
    """The violations whose impact fails a test."""
    return [v for v in violations if v["impact"] in FAILING]


def describe(violations: list[dict], where: str = "") -> str:
    """Each violation: rule id, impact, what it checks, then each offending node's selector and HTML."""
    lines = []
    for v in violations:
        lines.append(f"{where}{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}")
        for node in v["nodes"]:
            summary = (node.get("failureSummary") or "").splitlines()
            lines.append(f"    {' '.join(map(str, node['target']))}  {node['html'][:200]}")
            lines.extend(f"        {s.strip()}" for s in summary[1:3] if s.strip())
    return "\n".join(lines)


if __name__ == "__main__":
    print(fetch(), file=sys.stderr)
