"""The rotary page in a real Chromium: a preset base, a shared link (new and old form) with its language, a bad
base, the share button; and, on the real server, what a move sends."""

from playwright.sync_api import expect

from labtools.browser import EXCEPTION, assert_layout, shared_link, wait_for_plot, wait_until_idle
from labtools.moves import choose, click_button, drag_slider, pick, press_slider, type_into
from loadtest.protocol import Session
from tests.browser import walks


@walks
def test_every_section_keeps_its_layout_after_every_move(page, server_url):
    """A learner's walk through the page: after each move every chart keeps its height, covers nothing and has its
    tick labels (labtools.browser.assert_layout), with A pinned too."""
    page.goto(f"{server_url}/rotary")
    page.wait_for_selector(".js-plotly-plot")
    assert_layout(page)
    type_into(page, "head_dim", 64)
    assert_layout(page)
    pick(page, "500000")
    choose(page, "Scaling used", "YaRN")  # rotary.SCALINGS' "yarn", shown by its name
    page.wait_for_url(lambda url: "rp_method=yarn" in url)  # kept in the link as its code, by its callback
    type_into(page, "Scaling factor", 8)
    assert_layout(page)
    drag_slider(page, "Pair i", 0.2)
    drag_slider(page, "Positions drawn", 1)
    assert_layout(page)
    click_button(page, "Pin these settings as A")
    type_into(page, "head_dim", 32)
    assert_layout(page)  # A against B
    drag_slider(page, "Largest distance", 0.3)
    type_into(page, "Seed for random q, k", 3)
    assert_layout(page)
    type_into(page, "Heads", 4)
    press_slider(page, "Head", "End")
    drag_slider(page, "Sequence length", 1)
    assert_layout(page)
    assert page.locator(EXCEPTION).count() == 0


def test_rotary_page_redraws_for_llama3_base(page, server_url):
    page.goto(f"{server_url}/rotary")
    page.wait_for_selector(".js-plotly-plot")
    expect(page.get_by_text("θ_8 = 0.316 rad per position")).to_be_visible(timeout=30_000)  # base 10000
    page.get_by_role("radio", name="500000").click()
    page.wait_for_url("**/rotary?rp_base=500000")  # the link may be written before the sections are redrawn
    # The box and the sections follow once the browser has drawn the fragment's rerun, which under load is up to a
    # second after the app already reads as idle: wait for what the learner sees, not for the run's end.
    expect(page.get_by_role("textbox", name="base", exact=True)).to_have_value("500000", timeout=30_000)
    expect(page.get_by_text("θ_8 = 0.194 rad per position")).to_be_visible(timeout=30_000)
    wait_for_plot(
        page, "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout.title.text.includes('Pair'))"
    )
    assert page.locator(EXCEPTION).count() == 0


def test_a_shared_link_opens_with_its_settings_and_language(page, server_url):
    page.goto(f"{server_url}/rotary?rp_head_dim=64&rp_base=500000&rp_distance=99999&lang=zh")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.locator('[data-testid="stMain"] h1').first.inner_text() == "旋转位置编码与长上下文"
    assert page.get_by_label("head_dim").input_value() == "64"
    assert page.get_by_role("textbox", name="base", exact=True).input_value() == "500000"
    assert "rp_distance=99999" in page.locator('[data-testid="stAlertContentWarning"]').first.inner_text()
    assert "rp_head_dim=64" in page.url and "lang=zh" in page.url and "distance" not in page.url
    page.get_by_text("分享当前视图").click()
    expect(page.get_by_role("textbox", name="分享当前视图")).to_have_value(page.url)
    assert "/rotary?" in page.url and "rp_base=500000" in page.url
    assert page.locator(EXCEPTION).count() == 0


def test_an_old_form_link_opens_the_same_view(page, server_url):
    page.goto(f"{server_url}/rotary?head_dim=64&base=500000")  # a link made before the settings had a prefix
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    assert page.get_by_label("head_dim").input_value() == "64"
    assert page.get_by_role("textbox", name="base", exact=True).input_value() == "500000"
    assert "rp_head_dim=64" in page.url and "rp_base=500000" in page.url
    expect(page.locator('[data-testid="stAlertContentWarning"]')).to_have_count(0)
    assert page.locator(EXCEPTION).count() == 0


def test_a_bad_base_keeps_alibi_shown_and_the_link_follows(page, server_url):
    page.goto(f"{server_url}/rotary")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    base = page.get_by_role("textbox", name="base", exact=True)
    base.fill("abc")
    base.press("Enter")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(1)
    page.wait_for_url("**/rotary?rp_base=abc")
    expect(page.get_by_role("heading", name="4. ALiBi", exact=False)).to_be_visible()  # it does not use the base
    base.fill("500000")
    base.press("Enter")
    page.wait_for_url("**/rotary?rp_base=500000")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(0)
    wait_until_idle(page)
    assert page.locator(EXCEPTION).count() == 0


def test_the_share_button_copies_without_the_clipboard_api(page, server_url):
    # plain http on a workshop's network is not a secure context: Chromium has no navigator.clipboard there
    page.add_init_script("Object.defineProperty(window, 'isSecureContext', { value: false })")
    page.goto(f"{server_url}/rotary?rp_head_dim=64")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    page.get_by_text("Share this view").click()
    page.get_by_role("button", name="Copy").click()
    page.get_by_role("button", name="Copied").wait_for()
    page.keyboard.press("Escape")
    page.evaluate("document.body.appendChild(Object.assign(document.createElement('textarea'), { id: 'paste' }))")
    page.locator("#paste").focus()
    page.keyboard.press("Control+V")
    assert page.locator("#paste").input_value() == page.url


def test_an_a_b_link_round_trip(page, browser, server_url):
    """Pin A, change B, and the page's URL opened in a new page shows both A and B."""
    page.goto(f"{server_url}/rotary")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    page.get_by_role("button", name="Pin these settings as A").click()
    expect(page.get_by_text("B equals A: change a setting to compare")).to_be_visible()
    page.wait_for_url("**/rotary?rp_a=head_dim*")  # A is written into the link
    page.get_by_role("radio", name="500000").click()
    wait_for_plot(
        page, "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout.title.text.includes('A against B'))"
    )
    page.wait_for_url(lambda url: "rp_base=500000" in url and "rp_a=" in url)
    wait_until_idle(page)
    shared = page.url
    assert page.locator(EXCEPTION).count() == 0

    with shared_link(browser, shared) as other:
        other.wait_for_selector(".js-plotly-plot")
        wait_for_plot(
            other,
            "[...document.querySelectorAll('.js-plotly-plot')].some(p => p.layout.title.text.includes('A against B'))",
        )
        wait_until_idle(other)
        assert other.get_by_role("textbox", name="base", exact=True).input_value() == "500000"  # B
        expect(other.get_by_text("A is pinned: head_dim 128, base 10000,")).to_be_visible()  # A
        expect(other.get_by_role("button", name="Unpin A")).to_be_visible()
        expect(other.locator('[data-testid="stAlertContentWarning"]')).to_have_count(0)
        legend = other.evaluate(
            "[...document.querySelectorAll('.js-plotly-plot')].find(p => p.layout.title.text.includes('A against B'))"
            ".data.map(d => d.name)"
        )
        assert legend == ["A: wavelength", "B: wavelength"]
        assert "rp_a=" in other.url and "rp_base=500000" in other.url
        assert other.locator(EXCEPTION).count() == 0


def test_back_goes_through_pinning_too(page, server_url):
    page.goto(f"{server_url}/rotary")
    page.wait_for_selector(".js-plotly-plot")
    wait_until_idle(page)
    page.get_by_role("button", name="Pin these settings as A").click()
    page.wait_for_url("**/rotary?rp_a=head_dim*")
    wait_until_idle(page)
    page.get_by_role("radio", name="500000").click()
    page.wait_for_url(lambda url: "rp_base=500000" in url)
    wait_until_idle(page)
    page.go_back()  # B's change undone, A still pinned
    page.wait_for_url(lambda url: "rp_base" not in url and "rp_a=" in url)
    expect(page.get_by_text("B equals A: change a setting to compare")).to_be_visible()
    page.go_back()  # before the pin
    page.wait_for_url(lambda url: "rp_a=" not in url)
    expect(page.get_by_role("button", name="Pin these settings as A")).to_be_visible()
    wait_until_idle(page)
    assert "rp_a=" not in page.url and page.locator(EXCEPTION).count() == 0


SCALING = ("rp_method", "rp_factor", "rp_low_freq", "rp_high_freq", "rp_original", "rp_target")


def sent_paths(session: Session) -> list[tuple[int, ...]]:
    """The delta paths the server sent since `session.received` was set (a cached message, sent as its hash,
    included)."""
    assert session.received is not None
    return [tuple(m.metadata.delta_path) for m in session.received if m.WhichOneof("type") in ("delta", "ref_hash")]


def test_a_move_sends_the_sections_it_changes_and_nothing_else(server_url):
    """A base move reruns the RoPE sections' fragment and sends them: not the scaling settings above them, nor
    ALiBi. A scaling setting's move reruns the same fragment alone (its callback: st.rerun of the fragment's key)."""
    with Session.open(server_url, "rotary") as session:
        base, heads = session.widget("rp_base"), session.widget("rp_heads")
        scaling = [session.widget(key).path for key in SCALING]
        rope = base.fragment_id
        assert rope and all(not session.widget(key).fragment_id for key in SCALING)
        charts = [e.path for e in session.page_elements() if e.kind == "bidi_component" and e.fragment_id == rope]
        assert len(charts) == 4
        session.received = []
        result = session.set(base, "500000")
        assert result.ok and result.fragment_run, result.errors
        sent = sent_paths(session)
        assert base.path in sent and set(charts) <= set(sent)
        assert not set(sent) & {*scaling, heads.path}
        session.received = []
        result = session.set("rp_method", "linear (PI)")  # the option as shown (rp.scaling_linear)
        assert result.ok and result.fragment_run, result.errors
        sent = sent_paths(session)
        assert base.path in sent and set(charts) <= set(sent)
        assert not set(sent) & {*scaling, heads.path}
