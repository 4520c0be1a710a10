"""lessons.input_layer.caching.page_cache_data: a page's cached function is decorated once, and still caches by its arguments."""

from lessons.input_layer.caching import page_cache_data


def make():
    """The same function as a page script defines it at its top level on each run (a new object each time)."""
    namespace = {"calls": calls}
    exec(SOURCE, namespace)  # noqa: S102 (a fixed text, as Streamlit runs a page script)
    return namespace["shifted"]


SOURCE = compile("def shifted(x):\n    calls.append(x)\n    return x + 1\n", __file__ + ".page", "exec")
calls: list[int] = []


def test_the_same_function_is_decorated_once_and_caches_by_argument():
    first = page_cache_data(max_entries=4)(make())
    again = page_cache_data(max_entries=4)(make())
    assert again is first
    assert first(2) == 3 and again(2) == 3 and first(5) == 6
    assert calls == [2, 5]
    assert page_cache_data(max_entries=8)(make()) is not first  # other options: another cached function


def test_a_function_with_a_closure_is_decorated_each_time():
    def closing(offset: int):
        def shifted(x: int) -> int:
            return x + offset

        return shifted

    assert page_cache_data()(closing(1)) is not page_cache_data()(closing(2))
