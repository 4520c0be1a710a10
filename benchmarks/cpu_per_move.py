"""Server CPU per move, one learner at a time, every value already cached (issue 34's table), against the floor.

For each control (loadtest.controls.CONTROLS, by the name of its Locust user class): one simulated learner
(loadtest.protocol, the BackMsgs a browser sends, fragment reruns included) opens its page on a server that
nothing else uses, moves the control through its `bench_values` --warm times (each value computed and cached),
then makes --moves moves cycling through the same values, one after the other. The server process's CPU time
(user + system, every thread: /proc/<pid>/stat) is read before and after those moves, a short pause after the
last one included (the work a run leaves behind: sending its messages, orphaned media files). The server's idle
CPU (3 s with nothing moving) is subtracted. Printed per control: ms of server CPU per move, the median and the
range over --rounds rounds, whether the move reran a fragment alone, and the rerun's median wall time.

The floor is Streamlit's own cost of a move: benchmarks/trivial_page.py (one slider, one number box, their text)
on its own server, its number box moved the same way. Servers start as labtools.server.start_server starts
them: the lab's .streamlit/config.toml (postScriptGC off) and the deployed environment (one torch thread).

--profile DIR also records each control's moves with py-spy (requirements-bench.txt), in a separate pass (py-spy
slows the server it samples): DIR/<class>.txt, py-spy's collapsed stacks (`--format raw`, by default the thread
holding the GIL only; for flamegraph.pl or speedscope), and DIR/<class>.top.txt, the samples per stage of a move
(STAGES), per command our code called (st.number_input, go.Figure, ...), per call site, and per function.

--compare-browser checks the simulated learner against Chromium instead: for each control (a text box, number
box or slider), the BackMsg Chromium sends when the control is moved (Playwright, the websocket's frames) and the
one loadtest.protocol sends for the same move: the fragment named (a move inside an st.fragment reruns it
alone), the number of widget states, and the moved widget's value field and value.

PAGE_CONTROLS adds controls the load test does not simulate (SentenceQuery, SentenceList: --controls names them).

Run (2 cores: hold the lock): flock /tmp/emblab-bench.lock .venv/bin/python benchmarks/cpu_per_move.py
     [--controls PEDModel,WordK,...,TokensSentence,TokensStep,TokensLanguage] [--moves 40] [--rounds 3] [--warm 2] [--profile /tmp/profiles]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from labtools.browser import launch_chromium, wait_until_idle  # noqa: E402
from labtools.server import free_port, start_server  # noqa: E402
from loadtest.controls import CLASS_MIX, Control  # noqa: E402
from loadtest.controls import CONTROLS as LOADTEST_CONTROLS  # noqa: E402
from loadtest.protocol import RerunResult, Session  # noqa: E402

# The text-to-tokens page's main controls (issue 44's goal: at most 25 ms each with caches warm): its sentence, its
# merge step (of the 2,000 merges it opens with) and its language (the options as the segmented control shows them).
TOKENS = {
    "TokensSentence": Control(
        "text_to_tokens",
        "tt_sentence",
        ("the cat sat on the mat", "unbelievable tokens", "我喜欢机器学习。", "lower newest"),
    ),
    "TokensStep": Control("text_to_tokens", "tt_step", (10, 500, 1500, 2000)),
    "TokensLanguage": Control("text_to_tokens", "tt_lang", ("中文", "English")),
}
SETTLE_S = 600  # the text-to-tokens page's trainings (its own, and the fertility curves' two) on a fresh server


def settle(url: str, page: str, key: str) -> None:
    """Open the page until `key` is drawn and no progress bar is left: the text-to-tokens page's trainings run in
    the background on a fresh server, and each is done once for every learner after that."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        with Session.open(url, page) as session:
            kinds = {e.kind for e in session.page_elements()}
            if any(e.key == key for e in session.widgets()) and "progress" not in kinds:
                return
        time.sleep(1.0)
    raise RuntimeError(f"{page}: {key} not drawn within {SETTLE_S} s")


CLK_TCK = os.sysconf("SC_CLK_TCK")
PAUSE_S = 0.5  # after the last move (and for the idle rate): the work a run leaves behind is counted
TRIVIAL = "benchmarks/trivial_page.py"
FLOOR = "floor"  # the trivial page's number box, in the rows
# Pages' controls measured here and not simulated by the load test: a page may be opened at a chapter ("<path>?<query>").
# The "Sentence vectors" page (issue 45): the search's query box in chapter 3, the list of sentences in chapter 1 (a
# move changes one line of six, as a learner edits one sentence).
_LIST = "The cat sat on the mat.\nA kitten was sleeping on the rug.\nThe stock market fell sharply today.\n"
_LIST += "Shares dropped as investors sold.\nI love this film.\n"
PAGE_CONTROLS = {
    "SentenceQuery": Control(
        "sentence_vectors?sv_chapter=search",
        "sv_query",
        ("a storm is coming tonight", "my favourite band played", "the doctor gave me medicine", "a fast train"),
    ),
    "SentenceList": Control(
        "sentence_vectors",
        "sv_sentences",
        tuple(_LIST + last for last in ("I do not love this film.", "I hate this film.", "What a great film.")),
    ),
}
CONTROLS = {**LOADTEST_CONTROLS, **PAGE_CONTROLS, **TOKENS}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


@dataclass
class Row:
    """One control's measure: server CPU ms per move over the rounds, and what a move was."""

    name: str
    control: str
    cpu_ms: list[float]
    idle_ms_per_s: float
    fragment: bool
    wall_ms: float


class Mover:
    """Moves one control of one page through its values, as one learner."""

    def __init__(self, url: str, page: str, control: str, values_of) -> None:
        path, _, query = page.partition("?")  # a page opened at a chapter: "sentence_vectors?sv_chapter=search"
        self.session = Session.open(url, path, query)
        opened = self.session.last_open
        if opened is None or not opened.ok:
            raise RuntimeError(f"{page}: {opened.errors if opened else 'not opened'}")
        self.control = control
        self.values = values_of(self.session.widget(control))
        after = self.values[1:] + self.values[:1]
        if len(self.values) < 2 or any(a == b for a, b in zip(self.values, after, strict=True)):
            raise ValueError(f"{control}: bench values must differ from one to the next: {self.values}")
        self.i = 0
        self.fragment_runs = 0
        self.walls: list[float] = []

    def move(self) -> None:
        result = self.session.set(self.control, self.values[self.i % len(self.values)])
        self.i += 1
        if not result.ok:
            raise RuntimeError(f"{self.control}: {result.errors}")
        self.fragment_runs += result.fragment_run
        self.walls.append(result.seconds)

    def close(self) -> None:
        self.session.close()


def idle_rate(pid: int, seconds: float = 3.0) -> float:
    """The server's CPU seconds per second with nothing moving (after a pause for the last run's leftovers)."""
    time.sleep(PAUSE_S)
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0)


def measure_round(pid: int, mover: Mover, moves: int, idle: float) -> float:
    """Server CPU ms per move over `moves` moves, the idle rate subtracted. /proc's CPU times count in ticks
    (10 ms): over 40 moves that is 0.25 ms a move."""
    time.sleep(PAUSE_S)
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    for _ in range(moves):
        mover.move()
    time.sleep(PAUSE_S)
    return 1000 * (cpu_seconds(pid) - cpu0 - idle * (time.monotonic() - t0)) / moves


def measure(url: str, pid: int, name: str, page: str, control: str, values_of, args) -> Row:
    mover = Mover(url, page, control, values_of)
    try:
        for _ in range(args.warm * len(mover.values)):
            mover.move()
        mover.fragment_runs, mover.walls = 0, []
        idle = idle_rate(pid)
        rounds = [measure_round(pid, mover, args.moves, idle) for _ in range(args.rounds)]
    finally:
        mover.close()
    return Row(
        name=name,
        control=control,
        cpu_ms=rounds,
        idle_ms_per_s=1000 * idle,
        fragment=mover.fragment_runs == len(mover.walls),
        wall_ms=1000 * statistics.median(mover.walls),
    )


def profile(url: str, pid: int, name: str, page: str, control: str, values_of, args, out: Path) -> None:
    """py-spy's samples of the server while one control moves (after the warm-up), and their summary."""
    mover = Mover(url, page, control, values_of)
    raw = out / f"{name}.txt"
    try:
        for _ in range(args.warm * len(mover.values)):
            mover.move()
        spy = subprocess.Popen(
            [str(Path(sys.executable).with_name("py-spy")), "record", "--pid", str(pid), "--rate", str(args.rate)]
            + ["--format", "raw", "--output", str(raw), "--nonblocking"]
            + ([] if args.all_threads else ["--gil"]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(1.5)  # py-spy attaches
        for _ in range(args.profile_moves):
            mover.move()
        time.sleep(PAUSE_S)
        spy.send_signal(signal.SIGINT)
        _, err = spy.communicate(timeout=60)
        if not raw.exists():
            raise RuntimeError(f"py-spy wrote nothing: {err.decode()[-500:]}")
    finally:
        mover.close()
    (out / f"{name}.top.txt").write_text(summarise(raw.read_text(), args.profile_moves, args.rate))
    print(f"  profile: {raw} ({out / f'{name}.top.txt'})", flush=True)


# This repository's files as py-spy names them in a frame: libraries by their path under site-packages, the rest
# by their path from the working directory, and a lesson's page script, which Streamlit runs by its full path, by
# its folder (".../lessons/<lesson>/<lesson>.py").
ROOT = Path(__file__).resolve().parents[1]
USER_CODE = ("(app.py:", "(ui/", "(figures/", "(core/", "lessons/")


# What a sample is spent on: the first stage, in this order, whose test holds for the sample's stack (its frames
# joined by ";"). Sending a figure comes before building one, building before caching, and so on down to Streamlit's
# own work outside any page (running the script, sending messages).
def _has(*parts: str):
    return lambda stack: any(part in stack for part in parts)


STAGES = [
    ("st.plotly_chart: to_dict (deepcopy), to_json, id", _has("PlotlyMixin.plotly_chart")),
    ("live_chart: figure_json, component", _has("(ui/live_chart.py", "_mount_component")),
    ("figure builders: go.Figure, validation", _has("(figures/", "graph_objs/_figure.py")),
    ("cache hits: hashing arguments, copying values", _has("streamlit/runtime/caching/")),
    ("tables: st.table, st.dataframe, pandas", _has("elements/arrow.py", "elements/table.py", "pandas/")),
    ("widgets: register, state, URL binding", _has("elements/widgets/", "runtime/state/", "elements/lib/")),
    ("other elements: markdown, latex, layout", _has("streamlit/elements/", "delta_generator")),
    (
        "app.py outside the page: sidebar, navigation",
        lambda s: "<module> (app.py" in s and "Page.run" not in s and "wrapped_fragment" not in s,
    ),
    ("core, torch, numpy (GIL held)", _has("(core/", "torch/", "numpy/")),
    ("page code of ours", _has("Page.run", "wrapped_fragment")),
    ("script runner, event loop, messages out", lambda s: True),
]


def summarise(raw: str, moves: int, rate: int, top: int = 30) -> str:
    """py-spy's collapsed stacks -> samples per stage (STAGES), per call our code makes, and per function."""
    stages: dict[str, int] = {}
    calls: dict[str, int] = {}
    commands: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n, frames = int(count), stack.split(";")
        total += n
        stage = next(name for name, holds in STAGES if holds(stack))
        stages[stage] = stages.get(stage, 0) + n
        call = _call(frames)
        calls[call] = calls.get(call, 0) + n
        command = call.split(" -> ")[-1]
        commands[command] = commands.get(command, 0) + n
        name = _function(frames[-1])
        own[name] = own.get(name, 0) + n
    per_move = 1000 / rate / moves  # ms of samples per move, one sample each 1/rate s
    lines = [f"{total} samples, {total * per_move:.1f} ms a move sampled ({moves} moves at {rate}/s)"]
    for title, counts in (
        ("stage (the first of STAGES whose test holds for the stack):", stages),
        ("command (what the deepest frame of our code called, from wherever):", commands),
        ("call (the deepest frame of our code, and what it called):", calls),
        ("own samples (the function running):", own),
    ):
        lines += ["", title]
        for name, n in sorted(counts.items(), key=lambda kv: -kv[1])[:top]:
            lines.append(f"  {100 * n / total:5.1f}%  {n * per_move:6.1f} ms  {name}")
    return "\n".join(lines) + "\n"


def _call(frames: list[str]) -> str:
    """A stack's deepest frame in our code and the library function it called there ("own" when it ran itself);
    a stack without our code (the event loop sending messages): its deepest Streamlit frame."""
    mine = [i for i, fr in enumerate(frames) if any(u in fr for u in USER_CODE)]
    if not mine:
        streamlit = [fr for fr in frames if "streamlit/" in fr]
        return "no code of ours: " + _function(streamlit[-1] if streamlit else frames[-1])
    i = mine[-1]
    below = [fr for fr in frames[i + 1 :] if "metrics_util.py" not in fr]  # st.*'s wrapper: the command below it
    called = _function(below[0]) if below else "own"
    return f"{_function(frames[i])} -> {called}"


def _function(frame: str) -> str:
    """ "to_json (plotly/io/_json.py:123)" -> "to_json (plotly/io/_json.py)": a function without its line."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").rsplit(":", 1)[0]
    for marker in ("site-packages/", "/perf/", "python3.11/"):
        where = where.split(marker, 1)[-1]
    return f"{name} ({where})"


def rerun_sent(raw: bytes, widget_id: str) -> dict | None:
    """What a rerun BackMsg says (None for another message): its fragment, widget states, the widget's value."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg.FromString(raw)
    if msg.WhichOneof("type") != "rerun_script":
        return None
    state = msg.rerun_script
    moved = [w for w in state.widget_states.widgets if w.id == widget_id]
    return dict(
        fragment_id=state.fragment_id,
        widget_states=len(state.widget_states.widgets),
        moved=[(w.WhichOneof("value"), str(getattr(w, w.WhichOneof("value"))).strip()) for w in moved],
    )


def compare_browser(url: str, names: list[str]) -> None:
    """Chromium's BackMsg for a move of each control against loadtest.protocol's for the same move."""
    import tempfile

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = launch_chromium(p, tempfile.mkdtemp())
        for name in names:
            control = CONTROLS[name]
            with Session.open(url, control.page) as session:
                widget = session.widget(control.key)
            if widget.kind not in ("text_input", "number_input", "slider"):
                print(f"{name:>14} {control.key:<16} not compared: a {widget.kind} is moved by its own script")
                continue
            widget_id = widget.widget_id
            assert widget_id is not None, f"{control.key} is not a widget"
            value = widget.value + widget.proto.step if widget.kind == "slider" else control.bench_values(widget)[0]
            browser = [
                m
                for m in (rerun_sent(f, widget_id) for f in browser_move(context, url, control.page, widget, value))
                if m
            ]
            sent, result = protocol_move(url, control, value)
            ours = [m for m in (rerun_sent(f, widget_id) for f in sent) if m]
            same = browser == ours and result.ok
            print(f"{name:>14} {control.key:<16} {'same' if same else 'DIFFERENT'}: browser {browser}, ours {ours}")
        context.close()


def browser_move(context, url: str, path: str, widget, value) -> list[bytes]:
    """The binary frames Chromium sends while the control is moved: a slider one step right (a key press), a box
    typed (`value`, then Enter)."""
    page = context.new_page()
    page.set_default_timeout(120_000)
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda b: frames.append(b) if isinstance(b, bytes) else 0))
    page.goto(f"{url}/{path}")
    page.wait_for_selector('[data-testid="stMain"] h1')
    wait_until_idle(page)
    page.wait_for_timeout(1000)  # a rerun the page asks for as it opens (the link, the history) is not the move's
    wait_until_idle(page)
    before = len(frames)
    if widget.kind == "slider":
        page.locator(f'[data-testid="stSlider"] input[aria-label="{widget.label}"]').press("ArrowRight")
    else:
        box = page.get_by_label(widget.label, exact=True)
        box.fill(str(value))
        box.press("Enter")
    page.wait_for_timeout(500)
    wait_until_idle(page)
    page.close()
    return frames[before:]


def protocol_move(url: str, control, value) -> tuple[list[bytes], RerunResult]:
    """The frames loadtest.protocol sends for the same move, and its RerunResult."""
    sent: list[bytes] = []
    with Session.open(url, control.page) as session:
        session.sent = sent
        result = session.set(control.key, value)
    return sent, result


def print_row(row: Row, floor: float | None) -> None:
    median = statistics.median(row.cpu_ms)
    ratio = f"{median / floor:5.1f}x floor" if floor else ""
    spread = f"{min(row.cpu_ms):6.1f}-{max(row.cpu_ms):6.1f}"
    kind = "fragment" if row.fragment else "full run"
    print(
        f"{row.name:>14} {row.control:<16} {median:6.1f} ms CPU/move ({spread})  {kind:<8}  "
        f"wall {row.wall_ms:5.0f} ms  idle {row.idle_ms_per_s:4.1f} ms/s  {ratio}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--controls", default=",".join(CLASS_MIX), help="names in loadtest.controls.CONTROLS")
    parser.add_argument("--moves", type=int, default=40, help="measured moves per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm", type=int, default=2, help="passes through the values before measuring")
    parser.add_argument("--no-floor", action="store_true", help="leave out the trivial page")
    parser.add_argument("--profile", type=Path, default=None, help="also profile each control with py-spy here")
    parser.add_argument("--profile-moves", type=int, default=60)
    parser.add_argument("--profile-only", action="store_true", help="with --profile: no CPU measure, no floor")
    parser.add_argument("--summarise", type=Path, default=None, help="only print the summary of this raw profile")
    parser.add_argument("--compare-browser", action="store_true", help="only compare the BackMsgs with Chromium's")
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument(
        "--all-threads",
        action="store_true",
        help="sample every thread that is not idle; by default only the one holding the GIL (py-spy --gil): a "
        "thread waiting for the GIL looks busy to py-spy, and on a GIL-bound server the holder is the CPU spent",
    )
    args = parser.parse_args()
    if args.summarise:
        print(summarise(args.summarise.read_text(), args.profile_moves, args.rate), end="")
        return
    names = [n for n in args.controls.split(",") if n]
    if args.compare_browser:
        port = free_port()
        server = start_server(port)
        try:
            compare_browser(f"http://127.0.0.1:{port}", names)
        finally:
            server.terminate()
            server.wait(timeout=30)
        return
    rows: list[Row] = []
    floor = None
    print(f"Server CPU per move, one learner, caches warm ({args.rounds} rounds of {args.moves} moves):", flush=True)
    if args.profile_only and not args.profile:
        parser.error("--profile-only needs --profile DIR")
    if not args.no_floor and not args.profile_only:
        port = free_port()
        server = start_server(port, script=TRIVIAL)
        try:
            row = measure(
                f"http://127.0.0.1:{port}", server.pid, FLOOR, "", "trivial_number", lambda w: [1, 2, 3, 4], args
            )
        finally:
            server.terminate()
            server.wait(timeout=30)
        floor = statistics.median(row.cpu_ms)
        print_row(row, None)
        rows.append(row)
    port = free_port()
    server = start_server(port)
    url = f"http://127.0.0.1:{port}"
    try:
        for name in names:
            if name in TOKENS:
                settle(url, CONTROLS[name].page, CONTROLS[name].key)
        for name in [] if args.profile_only else names:
            c = CONTROLS[name]
            row = measure(url, server.pid, name, c.page, c.key, c.bench_values, args)
            print_row(row, floor)
            rows.append(row)
        if args.profile:
            args.profile.mkdir(parents=True, exist_ok=True)
            for name in names:
                c = CONTROLS[name]
                profile(url, server.pid, name, c.page, c.key, c.bench_values, args, args.profile)
    finally:
        server.terminate()
        server.wait(timeout=30)
    lab = [statistics.median(r.cpu_ms) for r in rows if r.name != FLOOR]
    if lab:
        print(f"mean over {len(lab)} controls: {statistics.mean(lab):.1f} ms, largest {max(lab):.1f} ms", flush=True)


if __name__ == "__main__":
    main()
