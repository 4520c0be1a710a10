"""What the tests, the benchmarks and the scripts share: start the lab's server as it is deployed (`server`), several
behind HAProxy (`replicas`), Debian's Chromium on a laptop's window or another screen (`browser`), a learner's moves
and the layout check after each (`moves`), axe-core (`axe`), and vector files made in memory (`uploads`).

It imports nothing of the lab itself (core, figures, ui, lessons): it drives the lab from outside, as a learner's
browser does (tests/test_structure.py checks this, and that benchmarks/ and scripts/ import nothing from tests/).
"""
