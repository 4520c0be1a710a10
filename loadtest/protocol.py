"""A learner without a browser: Streamlit 1.67's own websocket protocol, spoken with the protobuf classes it ships.

A `Session` does what the browser's frontend does, in the same order:

1. GET the page (`<base>/<page>?<query>`, with the Accept header a browser sends for a page, which is how
   deploy/haproxy.cfg tells a new arrival), then `_stcore/health` and `_stcore/host-config`, as the frontend's
   connection pings do. The health answer sets the `_streamlit_xsrf` cookie; a sticky proxy's cookie, if any,
   is kept too, from any answer, the websocket's handshake included (every cookie goes back on every request and
   on the websocket).
2. Open the websocket `<base>/_stcore/stream` with the subprotocols the browser sends: `streamlit`, then the XSRF
   cookie's value (the frontend's session token), with the page's Origin.
3. Send a `BackMsg.rerun_script` (a `ClientState`): the query string, the widget states of every widget on the
   page, the page (by `page_name`, the URL path, on the first run; by `page_script_hash` after that), the hashes
   of the cached messages it holds, and the browser context (timezone, locale, URL).
4. Read `ForwardMsg`s until `script_finished` for that run, keeping a model of the page: one `Element` per delta
   path, with its type, widget id, user key, label and main value.

Moving a widget (`Session.set`) sends the rerun the frontend sends for that move: the new value in the field the
frontend uses for that widget type (a slider's `double_array_value`, an integer number_input's `int_value`, a
selectbox's `string_value`, a custom component's `json_value`, ...), and the widget's fragment id when it sits in
an `st.fragment`, so that only the fragment reruns. Each rerun is timed from the `BackMsg` sent to its
`script_finished`.

What it leaves out: static assets (the JavaScript bundles, served as files), drawing, `auto_rerun` timers
(`st.fragment(run_every=...)`), uploads and media downloads. Blocking sockets (websocket-client), so Locust's
gevent monkey-patching makes many sessions cooperate in one process; this module never imports gevent or Locust.

    from loadtest.protocol import Session
    with Session.open("http://127.0.0.1:8600", "positional_encoding", "d_model=64") as s:
        result = s.set("pe_d_model", 128)  # by user key or label
        print(result.seconds, result.errors, s.widget("pe_d_model").value)
"""

from __future__ import annotations

import builtins
import json
import ssl
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any

import requests
import websocket
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.state.common import user_key_from_element_id

TIMEOUT_S = 30.0  # a rerun with no script_finished after this long is an error (issue 27's "no answer")
XSRF_COOKIE = "_streamlit_xsrf"
USER_AGENT = "emblab-loadtest/1 (Streamlit protocol client)"
FINISHED = ForwardMsg.ScriptFinishedStatus
# The widget element types and the WidgetState field the frontend fills for each (streamlit/static's widget
# components: Slider sets setDoubleArrayValue, Selectbox setStringValue, ...). number_input and slider depend on
# the element (int or float; a select_slider's options) and are resolved in _value_field.
VALUE_FIELDS = {
    "checkbox": "bool_value",
    "text_input": "string_value",
    "text_area": "string_value",
    "selectbox": "string_value",
    "radio": "string_value",
    "color_picker": "string_value",
    "multiselect": "string_array_value",
    "button_group": "string_array_value",  # st.segmented_control, st.pills
    "bidi_component": "json_value",  # st.components.v2: the component's state, a JSON object
    "button": "trigger_value",
}


# Chromium's Accept header when it opens a page: deploy/haproxy.cfg counts such a request without its replica
# cookie as a new arrival, to be let in or told the lab is full.
PAGE_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


class ProtocolError(RuntimeError):
    """The server answered something a browser would not accept (an HTTP error, a missing page)."""


class LabFull(ProtocolError):
    """The proxy answered 503 with Retry-After (deploy/503.http, "The lab is full"). `at`: "page" when the page
    itself was refused (a new arrival past capacity), "session" when the page came but its websocket was refused
    after waiting in the proxy's queue."""

    def __init__(self, message: str, at: str) -> None:
        super().__init__(message)
        self.at = at


@dataclass
class Element:
    """One element of the page, as the last run left it.

    path: its delta path (container, then the index in each block), which orders the page.
    kind: the Element oneof's name ("slider", "markdown", "plotly_chart", "exception", ...) or "block".
    widget_id: the element's id when it is a widget (or a custom component), else None.
    key: the user key in widget_id (`key="pe_d_model"`), if any.
    label: the widget's label, if it has one.
    value: the main value: a widget's current value (what this session last sent, else what the server drew),
        a text's body, an exception's message, True for a chart with a figure.
    fragment_id: the st.fragment that drew it, "" outside one.
    proto: the inner protobuf (a Slider, a Markdown, ...); None for a block.
    """

    path: tuple[int, ...]
    kind: str
    widget_id: str | None = None
    key: str | None = None
    label: str | None = None
    value: Any = None
    fragment_id: str = ""
    proto: Any = field(default=None, repr=False)


@dataclass
class RerunResult:
    """What one rerun gave: its time from the BackMsg to script_finished, the page after it, and its errors
    (exception elements, a closed socket, no answer within the timeout, a page not found). Empty errors: ok.

    fragment_id: the fragment the rerun asked for ("" for a run of the whole page).
    fragment_run: the server ran that fragment alone (script_finished said FINISHED_FRAGMENT_RUN_SUCCESSFULLY).
    """

    seconds: float
    elements: list[Element]
    errors: list[str]
    fragment_id: str = ""
    fragment_run: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors


def main_value(kind: str, proto: Any) -> Any:
    """The value an element shows: a widget's value as the server drew it, a text's body, a chart's presence."""
    if kind == "slider":
        values = list(proto.value if proto.set_value else proto.default)
        if proto.options:  # a select_slider: indices into its options
            values = [proto.options[int(i)] for i in values]
        return values[0] if len(values) == 1 else tuple(values)
    if kind == "number_input":
        number = proto.value if proto.set_value else proto.default
        return int(number) if proto.data_type == NumberInput.INT else number
    if kind in ("text_input", "text_area"):
        return proto.value if proto.set_value else proto.default
    if kind == "checkbox":
        return proto.value if proto.set_value else proto.default
    if kind in ("selectbox", "radio"):
        if proto.set_value:
            return proto.raw_value
        return proto.options[proto.default] if proto.HasField("default") and proto.options else None
    if kind == "multiselect":
        return tuple(proto.raw_values) if proto.set_value else tuple(proto.options[i] for i in proto.default)
    if kind == "button_group":
        if proto.set_value:
            return tuple(proto.raw_values)
        return tuple(proto.options[i].content for i in proto.default)
    if kind in ("markdown", "heading", "text", "alert"):
        return proto.body
    if kind == "code":
        return proto.code_text
    if kind == "exception":
        return f"{proto.type}: {proto.message}"
    if kind == "plotly_chart":
        return bool(proto.spec)
    if kind == "bidi_component":
        data = json.loads(proto.json) if proto.json else {}
        return bool(isinstance(data, dict) and data.get("figure"))
    return None


def _widget_state(element: Element, value: Any) -> WidgetState:
    """The WidgetState the frontend sends for `value` in `element`."""
    assert element.widget_id is not None, f"{element.kind} at {element.path} is not a widget"
    return _widget_state_for(element.kind, element.proto, element.widget_id, value)


def _widget_state_for(kind: str, proto: Any, widget_id: str, value: Any) -> WidgetState:
    state = WidgetState(id=widget_id)
    name = _value_field(kind, proto)
    if name == "double_array_value":
        state.double_array_value.data[:] = [float(v) for v in (value if isinstance(value, list | tuple) else [value])]
    elif name in ("string_array_value",):
        state.string_array_value.data[:] = [str(v) for v in (value if isinstance(value, list | tuple) else [value])]
    elif name == "int_value":
        state.int_value = int(value)
    elif name == "double_value":
        state.double_value = float(value)
    elif name == "string_value":
        state.string_value = str(value)
    elif name == "bool_value":
        state.bool_value = bool(value)
    elif name == "json_value":
        state.json_value = json.dumps(value)
    elif name == "trigger_value":
        state.trigger_value = bool(value)
    return state


def _value_field(kind: str, proto: Any) -> str:
    """The WidgetState field the frontend fills for a widget of this kind."""
    if kind == "number_input":
        return "int_value" if proto.data_type == NumberInput.INT else "double_value"
    if kind == "slider":
        return "string_array_value" if proto.options else "double_array_value"
    if kind not in VALUE_FIELDS:
        raise ValueError(f"{kind} is not a widget this client can set")
    return VALUE_FIELDS[kind]


class Session:
    """One learner: an HTTP session (cookies), a websocket, and the page it shows. Use `Session.open`."""

    def __init__(self, base_url: str, page: str, query: str = "", timeout: float = TIMEOUT_S) -> None:
        self.base_url = base_url.rstrip("/") + "/"
        self.page = page.strip("/")
        self.query_string = query.lstrip("?")
        self.timeout = timeout
        self.http = requests.Session()
        self.http.headers["User-Agent"] = USER_AGENT
        self.ws: websocket.WebSocket | None = None
        self.elements: dict[tuple[int, ...], Element] = {}
        self.page_script_hash = ""
        self.closed_reason: str | None = None
        self._values: dict[str, WidgetState] = {}  # what this learner set, by widget id
        self._cache: dict[str, tuple[bytes, int]] = {}  # cacheable ForwardMsgs by hash: (bytes, last run used)
        self._runs = 0
        self._max_cache_age = 2
        self.last_open: RerunResult | None = None
        # Set to a list to record what crosses the socket (the tests and benchmarks compare it with the browser's):
        # every frame sent, every binary ForwardMsg received.
        self.sent: list[bytes] | None = None
        self.received: list[ForwardMsg] | None = None

    # -- opening -------------------------------------------------------------------------------------------------

    @classmethod
    def open(cls, base_url: str, page: str, query: str = "", timeout: float = TIMEOUT_S) -> Session:
        """Open `page` (its URL path, e.g. "positional_encoding"; "" for the default page) with `query` as the
        browser does, and wait for its first run. `last_open` holds that run's RerunResult; the first run's
        errors (an exception on the page) do not raise, a refused connection does."""
        session = cls(base_url, page, query, timeout)
        session._handshake()
        session.last_open = session.rerun()
        return session

    def _page_url(self) -> str:
        url = urllib.parse.urljoin(self.base_url, self.page)
        return f"{url}?{self.query_string}" if self.query_string else url

    def _handshake(self) -> None:
        page = self.http.get(self._page_url(), timeout=self.timeout, headers={"Accept": PAGE_ACCEPT})
        if page.status_code == 503 and "retry-after" in page.headers:
            raise LabFull(f"GET {page.url}: HTTP 503, the lab is full", at="page")
        if page.status_code != 200:
            raise ProtocolError(f"GET {page.url}: HTTP {page.status_code}")
        for path in ("_stcore/health", "_stcore/host-config"):
            answer = self.http.get(urllib.parse.urljoin(self.base_url, path), timeout=self.timeout)
            if answer.status_code != 200:
                raise ProtocolError(f"GET {answer.url}: HTTP {answer.status_code}")
        parts = urllib.parse.urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        stream = urllib.parse.urlunsplit((scheme, parts.netloc, parts.path + "_stcore/stream", "", ""))
        token = self.http.cookies.get(XSRF_COOKIE) or "PLACEHOLDER_AUTH_TOKEN"
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        try:
            self.ws = websocket.create_connection(
                stream,
                timeout=self.timeout,
                subprotocols=["streamlit", token],
                origin=f"{parts.scheme}://{parts.netloc}",
                cookie=cookies or None,
                header={"User-Agent": USER_AGENT},
                sslopt={"cert_reqs": ssl.CERT_REQUIRED},
                enable_multithread=False,
            )
        except websocket.WebSocketBadStatusException as err:  # the proxy's "full" page, after the queue's wait
            if err.status_code == 503 and "retry-after" in (err.resp_headers or {}):
                raise LabFull(f"websocket {stream}: HTTP 503, the lab is full", at="session") from err
            raise
        # A proxy picks the session's replica when the websocket opens and sets its cookie on the handshake's
        # answer (deploy/haproxy.cfg); a browser keeps it, and sends it with its uploads and downloads.
        for name, morsel in SimpleCookie((self.ws.getheaders() or {}).get("set-cookie", "")).items():
            self.http.cookies.set(name, morsel.value, domain=parts.hostname, path=morsel["path"] or "/")

    # -- the page ------------------------------------------------------------------------------------------------

    def page_elements(self) -> list[Element]:
        """The page's elements in the order the browser shows them (blocks included)."""
        return [self.elements[p] for p in sorted(self.elements)]

    def widgets(self) -> list[Element]:
        return [e for e in self.page_elements() if e.widget_id]

    def widget(self, name: str) -> Element:
        """The widget whose user key or label is `name` (a key wins over a label)."""
        widgets = self.widgets()
        for match in (lambda e: e.key == name, lambda e: e.label == name):
            found = [e for e in widgets if match(e)]
            if found:
                return found[0]
        raise KeyError(f"no widget with key or label {name!r} on {self.page or 'the default page'}")

    def exceptions(self) -> list[str]:
        """The exception elements on the page (warnings aside)."""
        return [e.value for e in self.page_elements() if e.kind == "exception" and not e.proto.is_warning]

    # -- reruns --------------------------------------------------------------------------------------------------

    def set(self, widget: Element | str, value: Any) -> RerunResult:
        """Move a widget to `value` as a learner does, and wait for the rerun it starts."""
        element = widget if isinstance(widget, Element) else self.widget(widget)
        widget_id = element.widget_id
        assert widget_id is not None, f"{element.kind} at {element.path} is not a widget"
        self._values[widget_id] = _widget_state(element, value)
        result = self.rerun(fragment_id=element.fragment_id)
        if element.kind == "button":  # a trigger is true for one run only
            self._values.pop(widget_id, None)
        return result

    def rerun(self, fragment_id: str = "") -> RerunResult:
        """Send the rerun BackMsg for the page's current widget values and wait for its script_finished."""
        message = BackMsg(rerun_script=self._client_state(fragment_id))
        touched: set[tuple[int, ...]] = set()
        started = time.perf_counter()
        errors: list[str] = []
        if self.ws is None or self.closed_reason:
            closed = [f"socket closed: {self.closed_reason or 'never opened'}"]
            return RerunResult(0.0, self.page_elements(), closed, fragment_id)
        try:
            frame = message.SerializeToString()
            if self.sent is not None:
                self.sent.append(frame)
            self.ws.send_binary(frame)
            status = self._read_until_finished(touched, errors)
        except websocket.WebSocketTimeoutException:
            errors.append(f"no script_finished within {self.timeout:g} s")
            self.close()
            self.closed_reason = "timed out"
            return RerunResult(time.perf_counter() - started, self.page_elements(), errors, fragment_id)
        except (websocket.WebSocketException, OSError) as err:
            self.closed_reason = f"{type(err).__name__}: {err}"
            errors.append(f"socket closed: {self.closed_reason}")
            return RerunResult(time.perf_counter() - started, self.page_elements(), errors, fragment_id)
        seconds = time.perf_counter() - started
        fragment_run = status == FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
        self.elements = {
            path: e
            for path, e in self.elements.items()
            if path in touched or (fragment_run and e.fragment_id != fragment_id)
        }
        active = {e.widget_id for e in self.elements.values() if e.widget_id}
        self._values = {wid: state for wid, state in self._values.items() if wid in active}
        self._age_cache(fragment_id if fragment_run else "")
        if status == FINISHED.FINISHED_WITH_COMPILE_ERROR:
            errors.append("the page's script did not compile")
        errors += [f"exception element: {text}" for text in self.exceptions()]
        return RerunResult(seconds, self.page_elements(), errors, fragment_id, fragment_run)

    def _client_state(self, fragment_id: str) -> ClientState:
        state = ClientState(
            query_string=self.query_string,
            page_script_hash=self.page_script_hash,
            page_name="" if self.page_script_hash else self.page,
            fragment_id=fragment_id,
            cached_message_hashes=list(self._cache),
        )
        state.context_info.timezone = "UTC"
        state.context_info.timezone_offset = 0
        state.context_info.locale = "en-US"
        state.context_info.url = self._page_url()
        state.context_info.is_embedded = False
        state.context_info.color_scheme = "light"
        for element in self.widgets():  # the frontend sends every widget on the page (getActiveWidgetStates)
            if element.widget_id in self._values:
                state.widget_states.widgets.append(self._values[element.widget_id])
        return state

    def _read_until_finished(self, touched: builtins.set[tuple[int, ...]], errors: list[str]) -> int:
        """Apply ForwardMsgs to the page until the run this rerun asked for finishes; its status."""
        assert self.ws is not None
        while True:
            opcode, data = self.ws.recv_data()
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                raise websocket.WebSocketConnectionClosedException("the server closed the websocket")
            if opcode != websocket.ABNF.OPCODE_BINARY:
                continue
            msg = ForwardMsg()
            msg.ParseFromString(data)
            if self.received is not None:
                self.received.append(msg)
            kind = msg.WhichOneof("type")
            if kind == "ref_hash":
                cached = self._cache.get(msg.ref_hash)
                if cached is None:
                    raise ProtocolError(f"the server referred to a message this session never cached: {msg.ref_hash}")
                self._cache[msg.ref_hash] = (cached[0], self._runs)
                full = ForwardMsg()
                full.ParseFromString(cached[0])
                full.metadata.CopyFrom(msg.metadata)  # the reference carries this run's delta path
                msg, kind = full, full.WhichOneof("type")
            elif msg.metadata.cacheable and msg.hash and msg.hash not in self._cache:
                self._cache[msg.hash] = (data, self._runs)
            if kind == "new_session":
                self._max_cache_age = msg.new_session.config.max_cached_message_age or self._max_cache_age
            elif kind == "delta":
                self._apply_delta(msg, touched)
            elif kind == "navigation":  # st.navigation names the page that ran: later reruns ask for it by hash
                self.page_script_hash = msg.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query_string = msg.page_info_changed.query_string
            elif kind == "page_not_found":
                errors.append(f"page not found: {msg.page_not_found.page_name!r}")
            elif kind == "script_finished" and msg.script_finished != FINISHED.FINISHED_EARLY_FOR_RERUN:
                return msg.script_finished

    def _apply_delta(self, msg: ForwardMsg, touched: builtins.set[tuple[int, ...]]) -> None:
        delta = msg.delta
        path = tuple(msg.metadata.delta_path)
        which = delta.WhichOneof("type")
        if which == "add_block":
            self.elements[path] = Element(path, "block", fragment_id=delta.fragment_id)
        elif which == "new_element":
            element = delta.new_element
            kind = element.WhichOneof("type")
            assert kind is not None, "a new element of no type"
            inner = getattr(element, kind)
            is_widget = kind in VALUE_FIELDS or kind in ("slider", "number_input")
            widget_id = (getattr(inner, "id", "") or None) if is_widget else None
            value = main_value(kind, inner)
            # The frontend keeps a widget's value from run to run; the server's value replaces it only when the
            # script set it (set_value) or the widget is new.
            if widget_id is not None and kind not in ("button", "bidi_component") and value is not None:
                if getattr(inner, "set_value", False) or widget_id not in self._values:
                    self._values[widget_id] = _widget_state_for(kind, inner, widget_id, value)
            if widget_id is not None and widget_id in self._values:
                value = _state_value(self._values[widget_id])
            self.elements[path] = Element(
                path,
                kind,
                widget_id=widget_id,
                key=user_key_from_element_id(widget_id) if widget_id else None,
                label=getattr(inner, "label", None) or None,
                value=value,
                fragment_id=delta.fragment_id,
                proto=inner,
            )
        else:  # a transient (a spinner, a toast): shown for a moment, not part of the page
            return
        touched.add(path)

    def _age_cache(self, fragment_id: str) -> None:
        """Drop cached messages no run used lately, as the frontend's ForwardMsgCache does after a run."""
        self._runs += 1
        for digest, (data, last) in list(self._cache.items()):
            if self._runs - last > self._max_cache_age:
                if fragment_id:
                    cached = ForwardMsg()
                    cached.ParseFromString(data)
                    if cached.delta.fragment_id != fragment_id:
                        continue
                del self._cache[digest]

    # -- closing -------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the websocket (the server keeps the session a while, as for a closed tab) and the HTTP session."""
        if self.ws is not None:
            try:
                self.ws.close(timeout=1)
            except (websocket.WebSocketException, OSError):
                pass
            self.ws = None
        self.closed_reason = self.closed_reason or "closed"
        self.http.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Element]:
        return iter(self.page_elements())


def _state_value(state: WidgetState) -> Any:
    """A WidgetState's value as the page's main value (a one-value array as the value)."""
    name = state.WhichOneof("value")
    assert name is not None, f"the widget state of {state.id} holds no value"
    value = getattr(state, name)
    if name.endswith("_array_value"):
        values = list(value.data)
        return values[0] if len(values) == 1 else tuple(values)
    if name == "json_value":
        return json.loads(value)
    return value
