"""The class store (core.classroom): the memory store and the Redis store (a real redis-server on a free port) run
the same Hypothesis state machine against a plain model: classes started, learners joining and leaving, answers
(the latest counts, one per learner), views published and answers revealed with the right secret or a wrong one,
guessed codes, bounds reached, and time passing until classes end."""

import secrets
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from core.classroom import (
    ALPHABET,
    CODE_LENGTH,
    ClassGone,
    ClassStore,
    Limits,
    MemoryStore,
    NotJoined,
    NotLeader,
    RedisStore,
    StoreDown,
    TooMany,
    normal_code,
    store_from_env,
)
from labtools.redis_server import RedisServer, redis_server

LIMITS = Limits(classes=3, learners=3, questions=2, answer_chars=6, link_chars=40, ttl_s=100)
LEARNERS = ["ann", "bo", "cy", "di"]
QUESTIONS = ["q1", "q2", "q3"]


class Clock:
    def __init__(self) -> None:
        import time

        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def redis(tmp_path_factory):
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


class ClassMachine(RuleBasedStateMachine):
    """A store against the model: {code: {"secret", "deadline", "learners", "answers", "revealed", "version"}}."""

    make_store: Callable[[Limits, Clock], ClassStore]  # set by run_machine

    def __init__(self) -> None:
        super().__init__()
        self.clock = Clock()
        self.store = type(self).make_store(LIMITS, self.clock)
        self.model: dict[str, dict] = {}

    codes = Bundle("codes")

    def live(self) -> dict[str, dict]:
        return {c: k for c, k in self.model.items() if k["deadline"] > self.clock.now}

    @initialize()
    def nothing_yet(self):
        pass

    @rule(target=codes)
    def start(self):
        if len(self.live()) >= LIMITS.classes:
            with pytest.raises(TooMany):
                self.store.start()
            return "ZZZZZZ"  # a code no class has (never drawn: ALPHABET has Z, but the model never started it)
        code, secret = self.store.start()
        assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET) and code not in self.live()
        self.model[code] = dict(
            secret=secret, deadline=self.clock.now + LIMITS.ttl_s, learners=set(), answers={}, revealed=set(),
            version=0,
        )  # fmt: skip
        return code

    @rule(target=codes, code=st.text(ALPHABET, min_size=CODE_LENGTH, max_size=CODE_LENGTH))
    def guess(self, code):
        return code  # a guessed code: no class unless the store drew the same one

    def expect(self, code):
        """The model's class, or None (then the call must raise ClassGone)."""
        return self.live().get(code)

    @rule(code=codes, learner=st.sampled_from(LEARNERS))
    def join(self, code, learner):
        kept = self.expect(code)
        if kept is None:
            with pytest.raises(ClassGone):
                self.store.join(code, learner)
        elif learner not in kept["learners"] and len(kept["learners"]) >= LIMITS.learners:
            with pytest.raises(TooMany):
                self.store.join(code, learner)
        else:
            self.store.join(code, learner)
            kept["learners"].add(learner)

    @rule(code=codes, learner=st.sampled_from(LEARNERS))
    def leave(self, code, learner):
        kept = self.expect(code)
        if kept is None:
            with pytest.raises(ClassGone):
                self.store.leave(code, learner)
            return
        self.store.leave(code, learner)
        kept["learners"].discard(learner)
        for answered in kept["answers"].values():
            answered.pop(learner, None)

    @rule(code=codes, learner=st.sampled_from(LEARNERS), question=st.sampled_from(QUESTIONS), text=st.text(max_size=8))
    def answer(self, code, learner, question, text):
        kept = self.expect(code)
        error: type[Exception]
        if len(text) > LIMITS.answer_chars:  # refused before the store is asked
            error = TooMany
        elif kept is None:
            error = ClassGone
        elif learner not in kept["learners"]:
            error = NotJoined
        elif question not in kept["answers"] and len(kept["answers"]) >= LIMITS.questions:
            error = TooMany
        else:
            self.store.answer(code, learner, question, text)
            kept["answers"].setdefault(question, {})[learner] = text
            return
        with pytest.raises(error):
            self.store.answer(code, learner, question, text)

    def secret_of(self, code, right):
        kept = self.expect(code)
        return kept["secret"] if right and kept else secrets.token_urlsafe(24)

    @rule(code=codes, right=st.booleans(), page=st.sampled_from(["pe", "at"]), link=st.text(max_size=50))
    def publish(self, code, right, page, link):
        kept, secret = self.expect(code), self.secret_of(code, right)
        error: type[Exception]
        if len(link) > LIMITS.link_chars:  # refused before the store is asked
            error = TooMany
        elif kept is None:
            error = ClassGone
        elif not right:
            error = NotLeader
        else:
            kept["version"] += 1
            assert self.store.publish(code, secret, page, link) == kept["version"]
            view = self.store.view(code)
            assert (view.version, view.page, view.link) == (kept["version"], page, link)
            return
        with pytest.raises(error):
            self.store.publish(code, secret, page, link)

    @rule(code=codes, right=st.booleans(), question=st.sampled_from(QUESTIONS))
    def reveal(self, code, right, question):
        kept, secret = self.expect(code), self.secret_of(code, right)
        error: type[Exception]
        if kept is None:
            error = ClassGone
        elif not right:
            error = NotLeader
        elif question not in kept["revealed"] and len(kept["revealed"]) >= LIMITS.questions:
            error = TooMany
        else:
            self.store.reveal(code, secret, question)
            kept["revealed"].add(question)
            return
        with pytest.raises(error):
            self.store.reveal(code, secret, question)
        if kept is not None:
            assert self.store.is_leader(code, kept["secret"]) and not self.store.is_leader(code, secret)

    @rule(seconds=st.sampled_from([1.0, LIMITS.ttl_s / 2, LIMITS.ttl_s]))
    def time_passes(self, seconds):
        self.clock.now += seconds

    @rule(code=consumes(codes))
    def forget(self, code):
        pass  # fewer codes in the bundle: the rules meet the same class more often

    @invariant()
    def every_class_holds_what_the_model_holds(self):
        for code, kept in self.live().items():
            assert self.store.view(code).version == kept["version"]
            assert self.store.revealed(code) == kept["revealed"]
            assert self.store.learners(code) == len(kept["learners"])
            assert self.store.poll(code) == (kept["version"], len(kept["revealed"]), len(kept["learners"]))
            for learner in LEARNERS:
                assert self.store.joined(code, learner) == (learner in kept["learners"])
            for question in QUESTIONS:
                tally = self.store.tally(code, question)
                given = list(kept["answers"].get(question, {}).values())
                assert tally.joined == len(kept["learners"])
                assert tally.answers == {a: given.count(a) for a in set(given)}
                assert tally.answered == len(given) and tally.revealed == (question in kept["revealed"])
        for code in set(self.model) - set(self.live()):
            with pytest.raises(ClassGone):
                self.store.view(code)
            with pytest.raises(ClassGone):
                self.store.poll(code)


def run_machine(make_store, examples: int) -> None:
    machine = type("Machine", (ClassMachine,), {"make_store": staticmethod(make_store)})
    run_state_machine_as_test(
        machine,
        settings=settings(max_examples=examples, stateful_step_count=40, suppress_health_check=list(HealthCheck)),
    )


def test_the_memory_store_against_the_model():
    run_machine(lambda limits, clock: MemoryStore(limits, clock), examples=100)


def test_the_redis_store_against_the_model(redis):
    def fresh(limits, clock):
        store = RedisStore(redis.url, limits, clock)
        store._redis.flushdb()
        return store

    run_machine(fresh, examples=30)


def test_a_redis_class_expires_in_redis_itself(redis):
    """Each key of a class carries Redis's own expiry at the class's end (EXPIRE), not only the stores' check."""
    store = RedisStore(redis.url, Limits(ttl_s=60))
    code, secret = store.start()
    store.join(code, "ann")
    store.answer(code, "ann", "q1", "42")
    store.reveal(code, secret, "q1")
    keys = store._redis.keys(f"emblab:class:{code}*")
    assert len(keys) == 5 and all(0 < store._redis.pttl(k) <= 60_000 for k in keys)


def test_the_redis_store_down_then_back_keeps_its_classes(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore(server.url, pause_s=0)
    code, secret = store.start()
    store.join(code, "ann")
    store.answer(code, "ann", "q1", "7")
    server.stop()
    with pytest.raises(StoreDown):
        store.view(code)
    with pytest.raises(StoreDown):
        store.answer(code, "ann", "q1", "8")
    server.start()
    try:
        assert store.tally(code, "q1").answers == {"7": 1} and store.is_leader(code, secret)
        store.answer(code, "ann", "q1", "8")
        assert store.tally(code, "q1").answers == {"8": 1}
    finally:
        server.stop()


def test_a_down_store_is_not_tried_again_at_once(tmp_path):
    server = RedisServer(tmp_path)  # never started: nothing listens on its port
    store = RedisStore(server.url, pause_s=3600)
    with pytest.raises(StoreDown):
        store.start()
    store._scripts = {}  # any try would fail with KeyError: the pause answers without trying
    with pytest.raises(StoreDown):
        store.view("ABCDEF")


@given(st.text(ALPHABET, min_size=CODE_LENGTH, max_size=CODE_LENGTH), st.data())
def test_a_typed_code_is_read_in_any_case_and_spacing(code, data):
    spaced = "".join(ch + data.draw(st.sampled_from(["", " ", "-"])) for ch in code)
    typed = data.draw(st.sampled_from([str.lower, str.upper, str.title]))(f" {spaced} ")
    assert normal_code(typed) == code


@given(st.text(max_size=12))
def test_any_other_text_is_no_class_and_never_reaches_a_store(typed):
    code = "".join(ch for ch in typed.upper() if ch not in " -\t")
    if len(code) == CODE_LENGTH and set(code) <= set(ALPHABET):
        return
    with pytest.raises(ClassGone):
        normal_code(typed)
    with pytest.raises(ClassGone):
        MemoryStore().join(typed, "ann")  # a store refuses a code of another shape itself (a link's ?class=)


def test_the_store_is_chosen_by_the_environment(redis):
    assert isinstance(store_from_env({}), MemoryStore)
    assert isinstance(store_from_env({"EMBLAB_CLASS_STORE": "memory"}), MemoryStore)
    assert isinstance(store_from_env({"EMBLAB_CLASS_STORE": redis.url}), RedisStore)
    with pytest.raises(ValueError, match="redis://"):
        store_from_env({"EMBLAB_CLASS_STORE": "mysql://x"})
