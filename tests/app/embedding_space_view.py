"""What the embedding-space page shows in AppTest: the cloud's figure and the highlight over it, the points it states,
its metrics, plots and progress bars (tests/app/test_embedding_space*.py)."""

import json

from tests.app import wait_for_job

PAGE = "lessons/embedding_space/embedding_space.py"


def sent(at) -> dict:
    """What the page sent ui.live_chart for the cloud: its figure's text, and the found words' overlay (if any)."""
    return next(json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.component_name == "live_chart")


def chart(at) -> dict:
    """The cloud's figure (the live chart's), or while t-SNE runs its latest layout (an st.plotly_chart)."""
    if any(c.proto.component_name == "live_chart" for c in at.get("bidi_component")):
        return json.loads(sent(at)["figure"])
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def overlay(at) -> list[dict]:
    """The traces drawn over the cloud: the found word and its neighbours."""
    return json.loads(sent(at).get("overlay", "[]"))


def drawn(at) -> list[str]:
    return [w for trace in chart(at)["data"] for w in trace["hovertext"]]


def stated(at) -> int:
    line = next(m.value for m in at.markdown if "points are fitted and drawn" in m.value)
    return int(line.split("**")[1].split()[0].replace(",", ""))


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def plots(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def curve_panels(at) -> dict[str, dict[str, list[float]]]:
    """The curve figure's panels: {panel title: {line: values at k = 5, 10, 30, 100}}."""
    (fig,) = [f for f in plots(at) if f["layout"].get("title", {}).get("text", "").startswith("Both measures")]
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    panels: dict[str, dict[str, list[float]]] = {title: {} for title in titles}
    for trace in fig["data"]:
        panel = titles[int(trace["xaxis"][1:] or 1) - 1]
        panels[panel][trace["name"]] = trace["y"]
    return panels


def progress_texts(at) -> list[str]:
    return [bar.proto.text for bar in at.get("progress")]


def run_until_done(at, seconds: float = 120) -> None:
    """Rerun, as the progress fragments do in a browser, until no job's progress bar is left (tests.app.wait_for_job:
    fails after `seconds`)."""
    wait_for_job(at, lambda at: not at.get("progress"), "the embedding space's jobs", seconds)
