"""A live class: the view a leader shows and the answers joined learners give, in a store every replica shares.

A class is a short code (CODE_LENGTH letters of ALPHABET, drawn with `secrets`) and a leader secret: whoever holds
the secret publishes views and reveals answers; a learner knows the code only. The store keeps, per class, the
learners joined, the view shown (page, link, a version that grows with each view), each learner's latest answer per
question and the questions revealed. A class ends `Limits.ttl_s` after it starts.

`store_from_env()` picks the store: `EMBLAB_CLASS_STORE=redis://host:port/db` a Redis server (`RedisStore`: every
replica sees the same classes), unset or `memory` this process's memory (`MemoryStore`, scripts/run.sh's default).
Past a bound (`Limits`) a call raises a `core.problems.Problem` the page shows; a store that cannot be reached
raises `StoreDown`.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.problems import Problem

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: a code read off a projector is typed right
CODE_LENGTH = 6  # 31**6, about 887 million codes
STORE_ENV = "EMBLAB_CLASS_STORE"
ID_MOST = 64  # characters of a learner's or a question's id


@dataclass(frozen=True)
class Limits:
    """What one store holds at most: classes at once, learners per class, questions per class, an answer's
    characters, a view's link's characters; and how long a class lasts (seconds from its start)."""

    classes: int = 1_000
    learners: int = 500
    questions: int = 100
    answer_chars: int = 200
    link_chars: int = 8_000
    ttl_s: float = 12 * 3600


@dataclass(frozen=True)
class View:
    """What the leader shows: `version` 0 before the first view, then 1, 2, ...; `link` the view's address
    (path and query, as ui.link writes it), `page` its page's key."""

    version: int = 0
    page: str = ""
    link: str = ""


@dataclass(frozen=True)
class Tally:
    """The room's answers to one question: learners joined, {answer: how many gave it} (each joined learner's
    latest), and whether the leader revealed it."""

    joined: int
    answers: dict[str, int] = field(default_factory=dict)
    revealed: bool = False

    @property
    def answered(self) -> int:
        return sum(self.answers.values())


class ClassGone(Problem):
    """No such class: a code never started, mistyped, or past its time."""

    def __init__(self, code: str) -> None:
        super().__init__("class_gone", code=code)


class NotLeader(Problem):
    """A leader's action without the class's secret."""

    def __init__(self, code: str) -> None:
        super().__init__("class_not_leader", code=code)


class NotJoined(Problem):
    """An answer from a learner who has not joined (or has left) the class."""

    def __init__(self, code: str) -> None:
        super().__init__("class_not_joined", code=code)


class TooMany(Problem):
    """A bound of `Limits` reached: `what` is "classes", "learners", "questions", "answer_chars" or "link_chars"."""

    def __init__(self, what: str, most: int) -> None:
        super().__init__(f"class_most_{what}", most=f"{most:,}")


class StoreDown(Problem):
    """The class store cannot be reached (Redis down, the network cut): the lab works on without the class."""

    def __init__(self, why: str = "") -> None:
        super().__init__("class_store_down", why=why)


def normal_code(typed: str) -> str:
    """A class code as typed ("k7m 2qx", "K7M-2QX") in its one form ("K7M2QX"); ClassGone for text that is no code."""
    code = "".join(ch for ch in typed.upper() if ch not in " -\t")
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        raise ClassGone(typed.strip()[:20])
    return code


def _known(code: str) -> str:
    """`code` if it is one a store could have made (never a key of another shape), else ClassGone."""
    if not isinstance(code, str) or len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        raise ClassGone(str(code)[:20])
    return code


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def secret_hash(secret: str) -> str:
    """What a store keeps of a leader's secret: its SHA-256 (a leaked store leads no class)."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def same_secret(kept: str | None, secret: str) -> bool:
    """Whether `secret` is the one whose hash is `kept`, compared in constant time."""
    return kept is not None and hmac.compare_digest(kept, secret_hash(secret))


def _checked_id(what: str, value: str) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= ID_MOST:
        raise ValueError(f"a {what} id is 1 to {ID_MOST} characters, not {value!r:.80}")
    return value


class ClassStore(Protocol):
    """What the pages ask of a class store (MemoryStore, RedisStore)."""

    limits: Limits

    def start(self) -> tuple[str, str]:
        """A new class: (code, leader secret)."""
        ...

    def is_leader(self, code: str, secret: str) -> bool: ...

    def join(self, code: str, learner: str) -> None: ...

    def joined(self, code: str, learner: str) -> bool: ...

    def learners(self, code: str) -> int:
        """How many learners are in the class."""
        ...

    def leave(self, code: str, learner: str) -> None:
        """The learner leaves: their answers no longer count."""
        ...

    def publish(self, code: str, secret: str, page: str, link: str) -> int:
        """The leader shows a view; returns its version."""
        ...

    def view(self, code: str) -> View: ...

    def answer(self, code: str, learner: str, question: str, text: str) -> None:
        """The learner's answer to `question`, over their earlier one."""
        ...

    def tally(self, code: str, question: str) -> Tally: ...

    def reveal(self, code: str, secret: str, question: str) -> None: ...

    def revealed(self, code: str) -> frozenset[str]: ...

    def poll(self, code: str) -> tuple[int, int, int]:
        """What a page's poll asks (serve.class_view), in one call: (view version, answers revealed, learners)."""
        ...


@dataclass
class _Class:
    secret: str  # its hash
    deadline: float
    view: View = View()
    learners: set[str] = field(default_factory=set)
    answers: dict[str, dict[str, str]] = field(default_factory=dict)  # question: {learner: answer}
    revealed: set[str] = field(default_factory=set)


class MemoryStore:
    """Classes in this process's memory: one server (scripts/run.sh), the tests. Thread-safe: every learner's
    session runs in its own thread."""

    def __init__(self, limits: Limits = Limits(), clock: Callable[[], float] = time.time) -> None:
        self.limits = limits
        self.clock = clock
        self._classes: dict[str, _Class] = {}
        self._lock = threading.Lock()

    def _live(self, code: str) -> _Class:
        """The class `code`, if it has not ended (call with the lock held)."""
        kept = self._classes.get(_known(code))
        if kept is None or kept.deadline <= self.clock():
            self._classes.pop(code, None)
            raise ClassGone(code)
        return kept

    def _led(self, code: str, secret: str) -> _Class:
        kept = self._live(code)
        if not same_secret(kept.secret, secret):
            raise NotLeader(code)
        return kept

    def start(self) -> tuple[str, str]:
        secret = secrets.token_urlsafe(24)
        with self._lock:
            now = self.clock()
            for code in [c for c, kept in self._classes.items() if kept.deadline <= now]:
                del self._classes[code]
            if len(self._classes) >= self.limits.classes:
                raise TooMany("classes", self.limits.classes)
            code = new_code()
            while code in self._classes:
                code = new_code()
            self._classes[code] = _Class(secret_hash(secret), now + self.limits.ttl_s)
        return code, secret

    def is_leader(self, code: str, secret: str) -> bool:
        with self._lock:
            return same_secret(self._live(code).secret, secret)

    def join(self, code: str, learner: str) -> None:
        _checked_id("learner", learner)
        with self._lock:
            kept = self._live(code)
            if learner not in kept.learners and len(kept.learners) >= self.limits.learners:
                raise TooMany("learners", self.limits.learners)
            kept.learners.add(learner)

    def joined(self, code: str, learner: str) -> bool:
        with self._lock:
            return learner in self._live(code).learners

    def learners(self, code: str) -> int:
        with self._lock:
            return len(self._live(code).learners)

    def leave(self, code: str, learner: str) -> None:
        with self._lock:
            kept = self._live(code)
            kept.learners.discard(learner)
            for given in kept.answers.values():
                given.pop(learner, None)

    def publish(self, code: str, secret: str, page: str, link: str) -> int:
        if len(link) > self.limits.link_chars:
            raise TooMany("link_chars", self.limits.link_chars)
        with self._lock:
            kept = self._led(code, secret)
            kept.view = View(kept.view.version + 1, page, link)
            return kept.view.version

    def view(self, code: str) -> View:
        with self._lock:
            return self._live(code).view

    def answer(self, code: str, learner: str, question: str, text: str) -> None:
        _checked_id("question", question)
        if len(text) > self.limits.answer_chars:
            raise TooMany("answer_chars", self.limits.answer_chars)
        with self._lock:
            kept = self._live(code)
            if learner not in kept.learners:
                raise NotJoined(code)
            if question not in kept.answers and len(kept.answers) >= self.limits.questions:
                raise TooMany("questions", self.limits.questions)
            kept.answers.setdefault(question, {})[learner] = text

    def tally(self, code: str, question: str) -> Tally:
        with self._lock:
            kept = self._live(code)
            given = Counter(kept.answers.get(question, {}).values())
            return Tally(len(kept.learners), dict(given), question in kept.revealed)

    def reveal(self, code: str, secret: str, question: str) -> None:
        _checked_id("question", question)
        with self._lock:
            kept = self._led(code, secret)
            if question not in kept.revealed and len(kept.revealed) >= self.limits.questions:
                raise TooMany("questions", self.limits.questions)
            kept.revealed.add(question)

    def revealed(self, code: str) -> frozenset[str]:
        with self._lock:
            return frozenset(self._live(code).revealed)

    def poll(self, code: str) -> tuple[int, int, int]:
        with self._lock:
            kept = self._live(code)
            return kept.view.version, len(kept.revealed), len(kept.learners)


# --- Redis --------------------------------------------------------------------------------------------------
# One class is the hash emblab:class:<code> (secret's hash, deadline in ms, version, page, link) and beside it the
# sets <key>:learners, <key>:questions, <key>:revealed and a hash <key>:a:<question> {learner: answer}; every key
# expires at the class's deadline (PEXPIREAT), and each script checks the deadline itself against the caller's
# clock, so that a class ends at the same moment for every replica. emblab:classes orders the codes by deadline
# (the bound on classes at once). Each change is one Lua script: atomic across replicas.

PREFIX = "emblab:class:"
REGISTRY = "emblab:classes"
_ALIVE = """
local d = redis.call('HGET', KEYS[1], 'deadline')
if not d or tonumber(d) <= tonumber(ARGV[1]) then return {'gone'} end
local function add(set, member, most)  -- into a set of at most `most` members, expiring with the class; false if full
  if redis.call('SISMEMBER', set, member) == 1 then return true end
  if redis.call('SCARD', set) >= tonumber(most) then return false end
  redis.call('SADD', set, member)
  redis.call('PEXPIREAT', set, d)
  return true
end
"""
_SCRIPTS = {
    "start": """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return {'most'} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {'taken'} end
redis.call('HSET', KEYS[2], 'secret', ARGV[3], 'deadline', ARGV[4], 'version', 0, 'page', '', 'link', '')
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
return {'ok'}
""",
    "join": _ALIVE
    + """
if not add(KEYS[1] .. ':learners', ARGV[2], ARGV[3]) then return {'most'} end
return {'ok'}
""",
    "joined": _ALIVE + "return {'ok', redis.call('SISMEMBER', KEYS[1] .. ':learners', ARGV[2])}",
    "learners": _ALIVE + "return {'ok', redis.call('SCARD', KEYS[1] .. ':learners')}",
    "leave": _ALIVE
    + """
redis.call('SREM', KEYS[1] .. ':learners', ARGV[2])
for _, q in ipairs(redis.call('SMEMBERS', KEYS[1] .. ':questions')) do
  redis.call('HDEL', KEYS[1] .. ':a:' .. q, ARGV[2])
end
return {'ok'}
""",
    "secret": _ALIVE + "return {'ok', redis.call('HGET', KEYS[1], 'secret')}",
    "publish": _ALIVE
    + """
local v = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'page', ARGV[2], 'link', ARGV[3])
return {'ok', v}
""",
    "view": _ALIVE + "return {'ok', unpack(redis.call('HMGET', KEYS[1], 'version', 'page', 'link'))}",
    "answer": _ALIVE
    + """
if redis.call('SISMEMBER', KEYS[1] .. ':learners', ARGV[2]) == 0 then return {'not_joined'} end
if not add(KEYS[1] .. ':questions', ARGV[3], ARGV[5]) then return {'most'} end
local A = KEYS[1] .. ':a:' .. ARGV[3]
redis.call('HSET', A, ARGV[2], ARGV[4])
redis.call('PEXPIREAT', A, d)
return {'ok'}
""",
    "tally": _ALIVE
    + """
local r = redis.call('SISMEMBER', KEYS[1] .. ':revealed', ARGV[2])
return {'ok', redis.call('SCARD', KEYS[1] .. ':learners'), r, unpack(redis.call('HVALS', KEYS[1] .. ':a:' .. ARGV[2]))}
""",
    "reveal": _ALIVE
    + """
if not add(KEYS[1] .. ':revealed', ARGV[2], ARGV[3]) then return {'most'} end
return {'ok'}
""",
    "revealed": _ALIVE + "return {'ok', unpack(redis.call('SMEMBERS', KEYS[1] .. ':revealed'))}",
    "poll": _ALIVE
    + """
local v = redis.call('HGET', KEYS[1], 'version') or 0
return {'ok', tonumber(v), redis.call('SCARD', KEYS[1] .. ':revealed'), redis.call('SCARD', KEYS[1] .. ':learners')}
""",
}


class RedisStore:
    """Classes in a Redis server that every replica shares (EMBLAB_CLASS_STORE=redis://host:port/db).

    A call that cannot reach the server raises StoreDown at once (a short timeout, no retries), and for
    `pause_s` after a failure the server is not tried again, so that a page whose store is down does not wait on
    it at each run; the first call after the pause tries again: the class resumes when the server is back.
    """

    def __init__(
        self, url: str, limits: Limits = Limits(), clock: Callable[[], float] = time.time, pause_s: float = 2.0
    ) -> None:
        import redis  # only a Redis-backed lab needs the client
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.limits = limits
        self.clock = clock
        self.pause_s = pause_s
        self._errors = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
        self._redis = redis.Redis.from_url(
            url,
            socket_connect_timeout=1.0,
            socket_timeout=2.0,
            decode_responses=True,
            retry=Retry(NoBackoff(), 1),  # once at once: a pooled connection the server closed while it restarted
        )
        self._scripts = {name: self._redis.register_script(text) for name, text in _SCRIPTS.items()}
        self._down_until = 0.0

    def _run(self, name: str, keys: list[str], *args: Any) -> list:
        if time.monotonic() < self._down_until:
            raise StoreDown("paused")
        try:
            result = self._scripts[name](keys=keys, args=[int(self.clock() * 1000), *args])
        except self._errors as err:
            self._down_until = time.monotonic() + self.pause_s
            raise StoreDown(type(err).__name__) from None
        return list(result)

    def _class(self, name: str, code: str, *args: Any) -> list:
        """Script `name` on the class `code`: its results after the status, ClassGone if it has ended."""
        status, *rest = self._run(name, [PREFIX + _known(code)], *args)
        if status == "gone":
            raise ClassGone(code)
        return [status, *rest]

    def _check(self, code: str, secret: str) -> None:
        if not same_secret(self._class("secret", code)[1], secret):
            raise NotLeader(code)

    def start(self) -> tuple[str, str]:
        secret = secrets.token_urlsafe(24)
        deadline_ms = int((self.clock() + self.limits.ttl_s) * 1000)
        for _ in range(20):
            code = new_code()
            status, *_ = self._run(
                "start", [REGISTRY, PREFIX + code], code, secret_hash(secret), deadline_ms, self.limits.classes
            )
            if status == "most":
                raise TooMany("classes", self.limits.classes)
            if status == "ok":
                return code, secret
        raise RuntimeError("20 class codes in a row were taken")

    def is_leader(self, code: str, secret: str) -> bool:
        return same_secret(self._class("secret", code)[1], secret)

    def join(self, code: str, learner: str) -> None:
        if self._class("join", code, _checked_id("learner", learner), self.limits.learners)[0] == "most":
            raise TooMany("learners", self.limits.learners)

    def joined(self, code: str, learner: str) -> bool:
        return bool(self._class("joined", code, learner)[1])

    def learners(self, code: str) -> int:
        return int(self._class("learners", code)[1])

    def leave(self, code: str, learner: str) -> None:
        self._class("leave", code, learner)

    def publish(self, code: str, secret: str, page: str, link: str) -> int:
        if len(link) > self.limits.link_chars:
            raise TooMany("link_chars", self.limits.link_chars)
        self._check(code, secret)
        return int(self._class("publish", code, page, link)[1])

    def view(self, code: str) -> View:
        _, version, page, link = self._class("view", code)
        return View(int(version or 0), page or "", link or "")

    def answer(self, code: str, learner: str, question: str, text: str) -> None:
        _checked_id("question", question)
        if len(text) > self.limits.answer_chars:
            raise TooMany("answer_chars", self.limits.answer_chars)
        status = self._class("answer", code, learner, question, text, self.limits.questions)[0]
        if status == "not_joined":
            raise NotJoined(code)
        if status == "most":
            raise TooMany("questions", self.limits.questions)

    def tally(self, code: str, question: str) -> Tally:
        _, joined, revealed, *given = self._class("tally", code, question)
        return Tally(int(joined), dict(Counter(given)), bool(revealed))

    def reveal(self, code: str, secret: str, question: str) -> None:
        _checked_id("question", question)
        self._check(code, secret)
        if self._class("reveal", code, question, self.limits.questions)[0] == "most":
            raise TooMany("questions", self.limits.questions)

    def revealed(self, code: str) -> frozenset[str]:
        return frozenset(self._class("revealed", code)[1:])

    def poll(self, code: str) -> tuple[int, int, int]:
        _, version, revealed, joined = self._class("poll", code)
        return int(version), int(revealed), int(joined)


def store_from_env(environ: dict[str, str] | None = None) -> ClassStore:
    """The store EMBLAB_CLASS_STORE names: a redis:// (or rediss://, unix://) URL, or `memory` / unset for this
    process's memory. ValueError for anything else, naming what it takes."""
    url = (environ if environ is not None else os.environ).get(STORE_ENV, "").strip()
    if url in ("", "memory"):
        return MemoryStore()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(url)
    raise ValueError(f"{STORE_ENV}={url!r}: expected redis://host:port/db, or `memory` (the default)")


# Not a cached result (ui.cache caches those): the process's one store, which serve.py's poll endpoint reads outside
# any Streamlit run, so it cannot live in Streamlit's cache.
@functools.cache
def process_store() -> ClassStore:
    """This process's store (store_from_env), one for every session and for serve.py's poll endpoint."""
    return store_from_env()
