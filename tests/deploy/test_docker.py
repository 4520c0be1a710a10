"""The image's Dockerfile: its health check follows the port the server was started with, a page change
rebuilds one layer, and the build context leaves out what the image never needs."""

import re

from scripts.docker_healthcheck import health_url, server_option, streamlit_process
from tests.browser.harness import ROOT

ENTRYPOINT_ARGV = ["/opt/venv/bin/python3", "/opt/venv/bin/streamlit", "run", "app.py", "--server.address=0.0.0.0"]


def final_stage() -> list[str]:
    """The final stage's instructions, one string each (continuation lines joined)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    last_from = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    return lines[last_from:]


def test_the_health_check_follows_the_port_the_server_was_given():
    env = {"STREAMLIT_SERVER_PORT": "8501"}
    assert health_url([*ENTRYPOINT_ARGV, "--server.port=8501"], env) == "http://127.0.0.1:8501/_stcore/health"
    # an argument after the image name comes after the entry point's own, and wins, in Streamlit and here
    argv = [*ENTRYPOINT_ARGV, "--server.port=8501", "--server.port=9000"]
    assert health_url(argv, env) == "http://127.0.0.1:9000/_stcore/health"
    assert health_url([*ENTRYPOINT_ARGV, "--server.port", "9001"], env) == "http://127.0.0.1:9001/_stcore/health"
    assert health_url(ENTRYPOINT_ARGV, {"STREAMLIT_SERVER_PORT": "9002"}) == "http://127.0.0.1:9002/_stcore/health"
    assert health_url(ENTRYPOINT_ARGV, {}) == "http://127.0.0.1:8501/_stcore/health"
    assert server_option([*ENTRYPOINT_ARGV, "--server.baseUrlPath=/lab/"], {}, "baseUrlPath", "") == "/lab/"
    assert health_url(ENTRYPOINT_ARGV, {"STREAMLIT_SERVER_BASE_URL_PATH": "lab"}).endswith(":8501/lab/_stcore/health")


def test_the_health_check_reads_the_streamlit_process(tmp_path):
    for pid, argv, environ in [
        ("7", ["/bin/sh", "/usr/local/bin/emblab"], "PATH=/bin"),
        ("12", [*ENTRYPOINT_ARGV, "--server.port=9100"], "STREAMLIT_SERVER_PORT=8501\0HOME=/home/emblab"),
    ]:
        (tmp_path / pid).mkdir()
        (tmp_path / pid / "cmdline").write_bytes("\0".join(argv).encode() + b"\0")
        (tmp_path / pid / "environ").write_bytes(environ.encode() + b"\0")
    (tmp_path / "self").mkdir()
    argv, environ = streamlit_process(tmp_path)
    assert argv[-1] == "--server.port=9100" and environ["HOME"] == "/home/emblab"
    assert health_url(argv, environ) == "http://127.0.0.1:9100/_stcore/health"


def test_the_entry_point_and_the_image_serve_on_the_port_the_check_asks():
    entrypoint = (ROOT / "scripts" / "docker_entrypoint.sh").read_text()
    assert '--server.port="${STREAMLIT_SERVER_PORT:-8501}" "$@"' in entrypoint
    stage = final_stage()
    assert any(re.search(r"\bSTREAMLIT_SERVER_PORT=8501\b", line) for line in stage if line.startswith("ENV "))
    (healthcheck,) = [line for line in stage if line.startswith("HEALTHCHECK ")]
    assert healthcheck.endswith('CMD ["emblab-health"]') and "8501" not in healthcheck
    assert "COPY scripts/docker_healthcheck.py /usr/local/bin/emblab-health" in stage


def test_a_page_change_rebuilds_only_the_last_layer():
    stage = final_stage()
    first_copy = next(i for i, line in enumerate(stage) if line.startswith("COPY "))
    metadata = ("WORKDIR", "USER", "EXPOSE", "HEALTHCHECK", "ENTRYPOINT", "CMD", "ENV", "LABEL")
    late = [line for line in stage[first_copy:] if line.split()[0] in metadata]
    assert not late, f"metadata after the first COPY is rebuilt with it: {late}"
    assert stage[-1] == "COPY --from=source /app /app"
    source = (ROOT / "Dockerfile").read_text().split("AS source")[1].split("\nFROM ")[0]
    copied = re.findall(r"^COPY (\S+)", source, re.MULTILINE)
    assert {"app.py", "core/", "lessons/", "ui/"} <= set(copied)


def test_the_build_context_leaves_out_what_the_images_never_need():
    ignored = (ROOT / ".dockerignore").read_text().split()
    for path in ("tests", "benchmarks", "loadtest", "deploy", ".venv", ".git"):
        assert path in ignored, path
    for kept in ("!deploy/haproxy.cfg", "!deploy/503.http"):  # deploy/proxy.Dockerfile copies them
        assert kept in ignored
    assert not any(line.startswith("wheels") for line in ignored)  # OFFLINE=1 builds install from wheels/
