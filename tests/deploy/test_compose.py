"""deploy/compose.yaml and deploy/haproxy.cfg agree: the proxy asks the app service by its name and port,
publishes the port HAProxy binds, and both services have health checks and restart policies that
docker-compose and a swarm read. `docker-compose config` checks the file too where docker-compose is installed
(CI has no Docker: there the structure is checked with yaml alone)."""

import re
import shutil
import subprocess

import yaml

from tests.browser.harness import ROOT

DEPLOY = ROOT / "deploy"


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def haproxy_default(name: str) -> str:
    """The default deploy/haproxy.cfg gives an environment variable (its presetenv line)."""
    match = re.search(rf'^\s*presetenv {name} "([^"]*)"', (DEPLOY / "haproxy.cfg").read_text(), re.MULTILINE)
    assert match, name
    return match.group(1)


def default(value: str) -> str:
    """'${VAR:-x}' -> 'x' (the value docker-compose and docker stack deploy take when VAR is unset)."""
    match = re.fullmatch(r"\$\{\w+:-([^}]*)\}", str(value))
    return match.group(1) if match else str(value)


def test_the_proxy_asks_the_app_service_by_name_and_port():
    services = compose()["services"]
    assert set(services) == {"emblab", "proxy"}
    env = services["proxy"]["environment"]
    assert env["EMBLAB_SERVICE"] in services
    assert env["EMBLAB_SERVICE"] == haproxy_default("EMBLAB_SERVICE")
    assert env["EMBLAB_SERVICE_PORT"] == haproxy_default("EMBLAB_SERVICE_PORT") == "8501"
    assert "EXPOSE 8501" in (ROOT / "Dockerfile").read_text()


def test_only_the_proxy_publishes_the_port_haproxy_binds():
    services = compose()["services"]
    assert "ports" not in services["emblab"]
    (published,) = services["proxy"]["ports"]
    host, target = default(published.rsplit(":", 1)[0]), published.rsplit(":", 1)[1]
    assert host == "8501" and haproxy_default("EMBLAB_PROXY_BIND") == f":{target}"


def test_the_replicas_are_found_by_dns_on_a_swarm_too():
    deploy = compose()["services"]["emblab"]["deploy"]
    # one address per task, not a virtual IP that would spread one browser over replicas
    assert deploy["endpoint_mode"] == "dnsrr"
    assert int(default(deploy["replicas"])) >= 2


def test_both_services_restart_and_the_app_has_its_health_check():
    services = compose()["services"]
    for name, service in services.items():
        assert service["restart"] == "unless-stopped", name  # docker-compose
        assert service["deploy"]["restart_policy"]["condition"] == "any", name  # a swarm
    assert services["emblab"]["healthcheck"]["test"] == ["CMD", "emblab-health"]
    assert "emblab-health" in (ROOT / "Dockerfile").read_text()


def test_the_images_are_built_from_the_repository():
    services = compose()["services"]
    assert services["emblab"]["build"]["context"] == ".."
    proxy = services["proxy"]["build"]
    assert (DEPLOY / proxy["context"] / proxy["dockerfile"]).resolve() == DEPLOY / "proxy.Dockerfile"
    assert "COPY deploy/haproxy.cfg deploy/503.http" in (DEPLOY / "proxy.Dockerfile").read_text()


def test_docker_compose_reads_the_file_where_it_is_installed():
    tool = shutil.which("docker-compose")
    if tool is None:  # CI: the checks above are what it gets
        return
    result = subprocess.run(
        [tool, "-f", str(DEPLOY / "compose.yaml"), "config"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert services["emblab"]["deploy"]["replicas"] == 2
