"""The simulated learner against a real server: it gets the page an AppTest gets for the same widget values.

That shows loadtest.protocol sends the requests a browser sends (the handshake with XSRF on, the page, the
widget states in the fields the frontend uses), so the load it makes is the load learners make.
"""

import json

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element as ElementProto
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Widget

from loadtest.controls import CLASS_MIX, CONTROLS
from loadtest.protocol import Session, main_value
from tests.app import APP

# An element's message type -> its kind (the Element oneof's field name), for AppTest's nodes, which keep the
# inner message only. Kinds that share a message type (none on these pages) take the first.
KINDS: dict[str, str] = {}
for _field in ElementProto.DESCRIPTOR.oneofs_by_name["type"].fields:
    KINDS.setdefault(_field.message_type.name, _field.name)
# Widgets whose value AppTest gives as the script sees it (an option's value, not its label): their options
# are compared instead.
OPTION_WIDGETS = {"selectbox", "radio", "multiselect", "button_group"}


def described(kind: str, proto, value) -> tuple:
    """What the comparison looks at: the kind and the main value (options for a choice, the data for a chart)."""
    if kind in OPTION_WIDGETS:
        return kind, tuple(getattr(o, "content", o) for o in proto.options)
    if kind == "bidi_component":
        data = json.loads(proto.json) if proto.json else None
        if proto.component_name == "live_class" and data:  # each session names its own learner (ui.live_class)
            data = {**data, "learner": "a learner"}
        return kind, proto.component_name, data
    return kind, value


def apptest_page(at: AppTest) -> list[tuple]:
    """The main column's elements in order, as `described` tuples."""
    out = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if children is not None and not hasattr(node, "value"):
            for index in sorted(children):
                walk(children[index])
            return
        proto = node.proto
        kind: str
        if isinstance(proto, ElementProto):  # an element AppTest has no class for keeps the whole Element
            which = proto.WhichOneof("type")
            assert which is not None, "an element of no type"
            kind, proto = which, getattr(proto, which)
        else:
            kind = KINDS[type(proto).DESCRIPTOR.name]
        value = node.value if kind in ("number_input", "slider", "text_input", "text_area", "checkbox") else None
        out.append(described(kind, proto, value if value is not None else main_value(kind, proto)))

    walk(at.main)
    return out


def session_page(session: Session) -> list[tuple]:
    return [described(e.kind, e.proto, e.value) for e in session.page_elements() if e.path[0] == 0 and e.proto]


@pytest.mark.parametrize(
    ("page", "script", "moves"),
    [
        (
            "positional_encoding",
            "lessons/positional_encoding/positional_encoding.py",
            [("pe_d_model", 64), ("pe_d_model", 96)],
        ),
        ("rotary", "lessons/rotary/rotary.py", [("rp_base", "500000")]),
    ],
)
def test_a_simulated_rerun_gets_the_page_an_apptest_gets(server_url, page, script, moves):
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(script).run()
    with Session.open(server_url, page) as session:
        assert session.last_open is not None
        assert session.last_open is not None
        assert session.last_open.ok, session.last_open.errors
        assert session_page(session) == apptest_page(at)
        for key, value in moves:
            result = session.set(key, value)
            widget = next(w for w in at.get(session.widget(key).kind) if isinstance(w, Widget) and w.key == key)
            widget.set_value(value).run()
            assert result.ok, result.errors
            assert not at.exception
            assert session.widget(key).value == value
            assert session_page(session) == apptest_page(at)


@pytest.mark.parametrize("name", CLASS_MIX)
def test_each_class_control_moves_as_the_browser_moves_it(server_url, name):
    # issue 34's six controls: a widget inside an st.fragment is moved by a rerun that names its fragment, and the
    # server runs that fragment alone (the browser's BackMsgs: benchmarks/cpu_per_move.py --compare-browser)
    control = CONTROLS[name]
    with Session.open(server_url, control.page) as session:
        assert session.last_open is not None
        assert session.last_open is not None
        assert session.last_open.ok, session.last_open.errors
        widget = session.widget(control.key)
        session.sent = []
        result = session.set(widget, control.bench_values(widget)[0])
        sent = [BackMsg.FromString(frame) for frame in session.sent]
    assert result.ok, result.errors
    (rerun,) = [m.rerun_script for m in sent if m.WhichOneof("type") == "rerun_script"]
    assert rerun.fragment_id == widget.fragment_id == result.fragment_id
    assert result.fragment_run == bool(widget.fragment_id)
    assert widget.widget_id in {w.id for w in rerun.widget_states.widgets}
