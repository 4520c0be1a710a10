"""deploy/compose.yaml (docker-compose, one machine) and deploy/stack.yaml (docker stack deploy, a swarm) agree with
deploy/haproxy.cfg and with each other, and each holds only options its tool reads: docker-compose 1.29 warns that
it ignores the swarm's endpoint_mode, update_config, restart_policy.delay and reservations.cpus (and maps
restart_policy onto the containers' restart policy), and `docker stack deploy` warns that it ignores build and
restart. `docker-compose config` checks the file too where docker-compose is installed (CI has no Docker: there
the structure is checked with yaml alone)."""

import re
import shutil
import subprocess

import pytest
import yaml

from labtools.server import ROOT
from tests import found

DEPLOY = ROOT / "deploy"
# What docker-compose 1.29 reads under `deploy:` without a warning (compose/config/config.py's
# translate_deploy_keys_to_container_config); what `docker stack deploy` ignores (docker/cli's
# convertService: "Ignoring unsupported options").
COMPOSE_DEPLOY_KEYS = {"replicas", "resources"}
STACK_IGNORES = {"build", "restart", "container_name", "depends_on", "network_mode", "privileged"}


def read(name: str) -> dict:
    return yaml.safe_load((DEPLOY / name).read_text())


def haproxy_default(name: str) -> str:
    """The default deploy/haproxy.cfg gives an environment variable (its presetenv line)."""
    match = re.search(rf'^\s*presetenv {name} "([^"]*)"', (DEPLOY / "haproxy.cfg").read_text(), re.MULTILINE)
    assert match, name
    return match.group(1)


def default(value) -> str:
    """'${VAR:-x}' -> 'x' (the value docker-compose and docker stack deploy take when VAR is unset)."""
    match = re.fullmatch(r"\$\{\w+:-([^}]*)\}", str(value))
    return match.group(1) if match else str(value)


@pytest.mark.parametrize("name", ["compose.yaml", "stack.yaml"])
def test_the_proxy_asks_the_app_service_by_name_and_port(name):
    services = read(name)["services"]
    assert set(services) == {"emblab", "proxy", "redis"}  # redis: the live class (its own test)
    env = services["proxy"]["environment"]
    assert env["EMBLAB_SERVICE"] in services
    assert env["EMBLAB_SERVICE"] == haproxy_default("EMBLAB_SERVICE")
    assert env["EMBLAB_SERVICE_PORT"] == haproxy_default("EMBLAB_SERVICE_PORT") == "8501"
    assert "EXPOSE 8501" in (ROOT / "Dockerfile").read_text()
    assert "ports" not in services["emblab"]  # only the proxy publishes a port


def test_compose_publishes_the_port_haproxy_binds():
    (published,) = read("compose.yaml")["services"]["proxy"]["ports"]
    host, target = default(published.rsplit(":", 1)[0]), published.rsplit(":", 1)[1]
    assert host == "8501" and haproxy_default("EMBLAB_PROXY_BIND") == f":{target}"


def test_the_swarm_publishes_the_proxy_on_its_node_not_through_the_routing_mesh():
    (published,) = read("stack.yaml")["services"]["proxy"]["ports"]
    # the routing mesh (mode: ingress, the default) needs the kernel's IPVS; host mode needs nothing
    assert published["mode"] == "host" and published["protocol"] == "tcp"
    assert default(published["published"]) == "8501"
    assert haproxy_default("EMBLAB_PROXY_BIND") == f":{published['target']}"


def test_the_swarm_finds_the_replicas_by_dns_and_replaces_any_that_ends():
    services = read("stack.yaml")["services"]
    deploy = services["emblab"]["deploy"]
    # one address per task, not a virtual IP that would spread one browser over replicas
    assert deploy["endpoint_mode"] == "dnsrr"
    assert int(default(deploy["replicas"])) >= 2
    for name, service in services.items():
        assert service["deploy"]["restart_policy"]["condition"] == "any", name


def test_each_file_holds_only_options_its_tool_reads():
    for name, service in read("compose.yaml")["services"].items():
        assert set(service.get("deploy", {})) <= COMPOSE_DEPLOY_KEYS, name
        assert set(service.get("deploy", {}).get("resources", {}).get("reservations", {})) <= {"memory"}, name
        assert service["restart"] == "unless-stopped", name  # as the file says: restart_policy would override it
    for name, service in read("stack.yaml")["services"].items():
        assert not set(service) & STACK_IGNORES, name


def test_both_files_run_the_same_images_with_the_same_health_check_and_replicas():
    compose, stack = read("compose.yaml")["services"], read("stack.yaml")["services"]
    for name in compose:
        assert compose[name]["image"] == stack[name]["image"], name
        assert compose[name].get("environment") == stack[name].get("environment"), name
    assert compose["emblab"]["healthcheck"] == stack["emblab"]["healthcheck"]
    assert compose["emblab"]["healthcheck"]["test"] == ["CMD", "emblab-health"]
    assert "emblab-health" in (ROOT / "Dockerfile").read_text()
    assert compose["emblab"]["deploy"]["replicas"] == stack["emblab"]["deploy"]["replicas"]
    limits = compose["emblab"]["deploy"]["resources"]["limits"]
    assert limits == stack["emblab"]["deploy"]["resources"]["limits"]


def test_the_replicas_share_one_cache_volume_where_the_image_keeps_its_cache():
    cache = found(r"\bEMBLAB_CACHE_DIR=(\S+)", (ROOT / "Dockerfile").read_text()).group(1)
    for name in ("compose.yaml", "stack.yaml"):
        spec = read(name)
        assert spec["services"]["emblab"]["volumes"] == [f"emblab-cache:{cache}"], name
        assert "emblab-cache" in spec["volumes"], name
    # a new named volume takes the image folder's owner: the non-root user must be able to write it
    assert re.search(rf"chown emblab [^\n]*{re.escape(cache)}", (ROOT / "Dockerfile").read_text())


def test_compose_builds_both_images_offline_when_asked():
    services = read("compose.yaml")["services"]
    app = services["emblab"]["build"]
    assert app["context"] == ".." and app["network"] == "host"  # the wheels are served on the host's 127.0.0.1
    assert app["args"] == {"BASE": "${EMBLAB_BASE:-python:3.11-slim}", "OFFLINE": "${EMBLAB_OFFLINE:-0}"}
    proxy = services["proxy"]["build"]
    assert (DEPLOY / proxy["context"] / proxy["dockerfile"]).resolve() == DEPLOY / "proxy.Dockerfile"
    assert proxy["args"]["BASE"] == app["args"]["BASE"]
    assert "COPY deploy/haproxy.cfg deploy/503.http" in (DEPLOY / "proxy.Dockerfile").read_text()


def test_docker_compose_reads_the_file_where_it_is_installed():
    tool = shutil.which("docker-compose")
    if tool is None:  # CI: the checks above are what it gets
        return
    result = subprocess.run(
        [tool, "-f", str(DEPLOY / "compose.yaml"), "config"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "WARN" not in result.stderr, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert services["emblab"]["deploy"]["replicas"] == 2
    assert services["emblab"]["restart"] == "unless-stopped"


@pytest.mark.parametrize("name", ["compose.yaml", "stack.yaml"])
def test_the_replicas_share_a_redis_for_the_live_class_health_checked_with_redis_cli_ping(name):
    services = read(name)["services"]
    assert services["emblab"]["environment"]["EMBLAB_CLASS_STORE"] == "redis://redis:6379/0"
    redis = services["redis"]
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    assert "--appendonly" in redis["command"] and any(v.endswith(":/data") for v in redis["volumes"])
    # the replicas are other hosts: with protected mode on, a Redis without a password refuses them (Debian's
    # redis-server, the offline image's, found so in Docker: scripts/deploy_check.sh's compose step)
    assert redis["command"][redis["command"].index("--protected-mode") + 1] == "no"
    assert "ports" not in redis  # reached on the stack's own network only
    if name == "compose.yaml":
        assert "redis" in services["emblab"]["depends_on"]
