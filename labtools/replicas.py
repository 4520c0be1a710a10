"""N `streamlit run` replicas behind Debian's HAProxy on this host, with deploy/haproxy.cfg (the file that
deploy/compose.yaml's proxy image serves): what the proxy test and the capacity benchmark run without Docker.

    with start_replicas(2) as lab:
        page.goto(lab.url + "/word_embeddings")
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from labtools.server import ROOT, free_port, start_server, stop

HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
# The cookie deploy/haproxy.cfg inserts to keep a browser on its replica.
STICKY_COOKIE = "EMBLAB_REPLICA"
# The response header naming the replica that answered: app1 is the first of start_replicas's servers.
REPLICA_HEADER = "x-emblab-replica"
MAX_HOST_SERVERS = 8  # EMBLAB_SERVER_1 .. EMBLAB_SERVER_8 in deploy/haproxy.cfg


def haproxy_binary() -> str:
    """Debian's haproxy (scripts/test.sh installs it); EMBLAB_HAPROXY names another."""
    path = os.environ.get("EMBLAB_HAPROXY") or shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(path).exists():
        raise RuntimeError(f"{path} is missing: install Debian's haproxy (scripts/test.sh does).")
    return path


def start_proxy(
    backends: list[str],
    port: int | None = None,
    log: Path | None = None,
    env: dict[str, str] | None = None,
    cfg: Path = HAPROXY_CFG,
) -> tuple[subprocess.Popen, str]:
    """HAProxy with deploy/haproxy.cfg (or `cfg`, e.g. another commit's copy) on 127.0.0.1:port in front of
    `backends` ("127.0.0.1:PORT" each), with `env` added to its environment (EMBLAB_LEARNERS_PER_REPLICA, ...).

    Returns the process and the proxy's URL once it accepts connections. The backends need not be up: with
    none healthy the proxy answers 503 with deploy/503.http.
    """
    if not 1 <= len(backends) <= MAX_HOST_SERVERS:
        raise ValueError(f"deploy/haproxy.cfg takes 1 to {MAX_HOST_SERVERS} host servers, not {len(backends)}")
    port = port or free_port()
    proxy_env = env
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMBLAB_SERVER_")}
    env["EMBLAB_PROXY_BIND"] = f"127.0.0.1:{port}"
    env.update({f"EMBLAB_SERVER_{i}": b for i, b in enumerate(backends, start=1)})
    env.update(proxy_env or {})
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the process holds it)
    proc = subprocess.Popen([haproxy_binary(), "-db", "-f", str(cfg)], env=env, stdout=out, stderr=out)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"haproxy exited with {proc.returncode}: run haproxy -c -f {cfg}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).close()
            break
        except urllib.error.HTTPError:  # a 503 still means the proxy listens
            break
        except OSError:
            time.sleep(0.1)  # polling: the port is not open yet, and a refused connection returns at once
    else:
        proc.kill()
        raise RuntimeError("haproxy did not accept connections within 20 s")
    return proc, f"http://127.0.0.1:{port}"


@dataclass
class Replicas:
    """Running replicas and their proxy. `url` is what a browser opens; `stop()` ends every process."""

    url: str
    proxy: subprocess.Popen
    servers: list[subprocess.Popen]
    ports: list[int]
    env: dict | None = None  # what each replica's environment has beyond labtools.server.SERVER_ENV
    stopped: set[int] = field(default_factory=set)

    def stop_replica(self, i: int) -> None:
        """Stop replica i (0-based), as a crash would; the proxy's health check takes it out of rotation."""
        stop(self.servers[i])
        self.stopped.add(i)

    def kill_replica(self, i: int) -> None:
        """Kill replica i with SIGKILL (`kill -9`, an out-of-memory kill): no goodbye to its browsers."""
        self.servers[i].kill()
        self.servers[i].wait()
        self.stopped.add(i)

    def restart_replica(self, i: int) -> None:
        """Start replica i again on its port, as compose's or a swarm's restart does; returns once it answers."""
        self.servers[i] = start_server(self.ports[i], self.env)
        self.stopped.discard(i)

    def stop(self) -> None:
        for i, proc in enumerate(self.servers):
            if i not in self.stopped:
                stop(proc)
        self.stopped = set(range(len(self.servers)))
        stop(self.proxy)

    def __enter__(self) -> Replicas:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start_replicas(
    n: int = 2,
    env: dict | None = None,
    proxy_port: int | None = None,
    proxy_env: dict[str, str] | None = None,
    cfg: Path = HAPROXY_CFG,
    script: str = "serve.py",
) -> Replicas:
    """Start n replicas served as the image serves them (labtools.server.start_server, each with `env` added to
    its environment) on free 127.0.0.1 ports, and HAProxy with `cfg` (deploy/haproxy.cfg) in front of them, with
    `proxy_env` added to its environment. `script`: a benchmark's own page instead of the lab (serve.py).

    Returns once every replica answers /_stcore/health and the proxy listens on proxy_port (a free port if
    None). The caller stops everything with `stop()` or a `with` block.
    """
    ports: list[int] = []
    while len(ports) < n:  # free_port() may hand out a port twice before any server binds it
        if (p := free_port()) not in ports and p != proxy_port:
            ports.append(p)
    with ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(start_server, p, env, script) for p in ports]
    servers = []
    errors = []
    for f in futures:
        try:
            servers.append(f.result())
        except RuntimeError as err:
            errors.append(err)
    if errors:
        for proc in servers:
            stop(proc)
        raise errors[0]
    try:
        proxy, url = start_proxy([f"127.0.0.1:{p}" for p in ports], proxy_port, env=proxy_env, cfg=cfg)
    except Exception:
        for proc in servers:
            stop(proc)
        raise
    return Replicas(url=url, proxy=proxy, servers=servers, ports=ports, env=env)
