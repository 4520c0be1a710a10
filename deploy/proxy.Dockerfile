# HAProxy in front of the lab's replicas (deploy/compose.yaml), on the app image's base, from Debian's packages.
#   docker build -f deploy/proxy.Dockerfile -t emblab-proxy .
# The configuration is deploy/haproxy.cfg, the one tests/browser/replicas.py serves on the host; it finds the
# replicas by the DNS name $EMBLAB_SERVICE (default emblab).
ARG BASE=python:3.11-slim
FROM ${BASE}
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --no-create-home --uid 10002 emblab-proxy
# Metadata before the COPY, so a change to the configuration rebuilds one layer.
USER 10002
EXPOSE 8501
ENTRYPOINT ["haproxy", "-W", "-db", "-f", "/etc/haproxy/emblab/haproxy.cfg"]
COPY deploy/haproxy.cfg deploy/503.http /etc/haproxy/emblab/
