"""deploy/k8s/ against the Kubernetes schemas kubernetes-validate carries (offline), and against each other:
the probes, the Service, Ingress and autoscaler name the Deployment's pods, port and health endpoint."""

import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from labtools.server import ROOT

K8S = ROOT / "deploy" / "k8s"
HEALTH = "/_stcore/health"


def manifests(app: str = "emblab") -> dict[str, dict]:
    """Every resource of `app` in deploy/k8s/ (its app.kubernetes.io/name: the lab, or emblab-redis), by kind."""
    found = {}
    for path in sorted(K8S.glob("*.yaml")):
        for resource in yaml.safe_load_all(path.read_text()):
            if resource["metadata"].get("labels", {}).get("app.kubernetes.io/name", "emblab") == app:
                found[resource["kind"]] = resource
    return found


@pytest.mark.parametrize("path", sorted(K8S.glob("*.yaml")), ids=lambda p: p.name)
def test_each_manifest_passes_the_kubernetes_schema_strictly(path: Path):
    for resource in yaml.safe_load_all(path.read_text()):
        kubernetes_validate.validate(resource, kubernetes_validate.latest_version(), strict=True)


def test_the_validator_rejects_a_misspelt_field():
    deployment = manifests()["Deployment"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    broken = {**deployment, "spec": {**deployment["spec"], "replicaz": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, kubernetes_validate.latest_version(), strict=True)
    assert container["name"] == "emblab"


def test_every_probe_asks_the_health_endpoint_on_the_served_port():
    pod = manifests()["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    env = {e["name"]: e["value"] for e in container["env"]}
    assert ports["http"] == int(env["STREAMLIT_SERVER_PORT"])
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": HEALTH, "port": "http"}, probe
    resources = container["resources"]
    assert set(resources["requests"]) == set(resources["limits"]) == {"cpu", "memory"}


def test_the_pod_runs_as_the_images_non_root_user_without_privileges():
    pod = manifests()["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]["securityContext"]
    assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] == 10001
    assert "useradd --create-home --uid 10001 emblab" in (ROOT / "Dockerfile").read_text()
    assert container["allowPrivilegeEscalation"] is False
    assert container["capabilities"]["drop"] == ["ALL"]
    if container.get("readOnlyRootFilesystem"):
        mounts = {m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
        assert "/tmp" in mounts  # numba's cache (NUMBA_CACHE_DIR) and the .pyc files live there
        assert image_env("EMBLAB_CACHE_DIR") in mounts  # GloVe's unit rows are written there on the first start


def image_env(name: str) -> str:
    """The value the Dockerfile's ENV gives `name`."""
    match = re.search(rf"\b{name}=(\S+)", (ROOT / "Dockerfile").read_text())
    assert match, name
    return match.group(1)


def test_service_ingress_and_autoscaler_name_the_deployment():
    found = manifests()
    labels = found["Deployment"]["spec"]["template"]["metadata"]["labels"]
    assert found["Deployment"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    service = found["Service"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    backend = found["Ingress"]["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": service["metadata"]["name"], "port": {"name": service["spec"]["ports"][0]["name"]}}
    target = found["HorizontalPodAutoscaler"]["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", found["Deployment"]["metadata"]["name"])
    assert found["HorizontalPodAutoscaler"]["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    assert found["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"].items() <= labels.items()


def test_the_ingress_keeps_a_browser_on_one_pod_with_a_cookie():
    annotations = manifests()["Ingress"]["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600  # an idle learner's websocket
    upload_cap = (ROOT / ".streamlit" / "config.toml").read_text().split("maxUploadSize = ")[1].split()[0]
    assert annotations["nginx.ingress.kubernetes.io/proxy-body-size"] == f"{upload_cap}m"


def test_the_pods_share_a_redis_for_the_live_class_health_checked_with_redis_cli_ping():
    env = {e["name"]: e["value"] for e in manifests()["Deployment"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    redis = manifests("emblab-redis")
    service = redis["Service"]
    assert env["EMBLAB_CLASS_STORE"] == f"redis://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}/0"
    assert service["spec"]["selector"] == redis["Deployment"]["spec"]["selector"]["matchLabels"]
    container = redis["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["exec"]["command"] == ["redis-cli", "ping"]
    assert "--appendonly" in container["args"]
    assert container["args"][container["args"].index("--protected-mode") + 1] == "no"  # the lab's pods are other hosts
    assert service["spec"].get("type", "ClusterIP") == "ClusterIP"  # inside the cluster only
