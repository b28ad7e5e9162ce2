#!/usr/bin/env bash
# kind.sh up|down — the laptop alternative to up.sh/down.sh (needs kind and
# Docker or Podman; kind cannot run on CI here).
#
#   kind.sh up [DIR]    create cluster "kora" from kind.yaml, write
#                       DIR/kubeconfig (DIR default: target/kind), configure the
#                       controller-manager like up.sh (taint-eviction controller
#                       off, so API-registered nodes' pods are never evicted),
#                       wait until the default ServiceAccount exists.
#   kind.sh down [DIR]  delete the cluster and DIR/kubeconfig.
# Then: export KUBECONFIG=DIR/kubeconfig — the Java suite uses it instead of
# starting the local plane.
# Env: KORA_KIND_IMAGE  node image, e.g. kindest/node:v1.36.1 (default: the
#                       kind release's default image; keep the minor equal to
#                       the version pinned in k8s-bin/go.mod)
#      KIND_EXPERIMENTAL_PROVIDER=podman  as for kind itself
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log() { echo "kind.sh: $*" >&2; }
cmd=${1:-}; DIR=$(realpath -m "${2:-target/kind}")
NAME=kora
case "$cmd" in
up)
  command -v kind >/dev/null || { log "kind not found"; exit 2; }
  mkdir -p "$DIR"
  kind create cluster --name "$NAME" --config "$here/kind.yaml" \
    ${KORA_KIND_IMAGE:+--image "$KORA_KIND_IMAGE"} --kubeconfig "$DIR/kubeconfig" --wait 120s
  node=$NAME-control-plane
  rt=docker; [ "${KIND_EXPERIMENTAL_PROVIDER:-}" = podman ] && rt=podman
  log "disabling the taint-eviction controller on $node"
  # kubeadm writes --controllers=*,bootstrapsigner,tokencleaner; the kubelet
  # restarts the static pod when the manifest changes.
  $rt exec "$node" sed -i -E \
    's/^(\s*- --controllers=[^ ]*)$/\1,-taint-eviction-controller/' \
    /etc/kubernetes/manifests/kube-controller-manager.yaml
  export KUBECONFIG=$DIR/kubeconfig
  for _ in $(seq 1 120); do
    kubectl -n kube-system get pods -l component=kube-controller-manager -o jsonpath='{.items[0].spec.containers[0].command}' 2>/dev/null \
      | grep -q -- '-taint-eviction-controller' && \
    kubectl -n default get serviceaccount default >/dev/null 2>&1 && break
    sleep 1
  done
  kubectl -n kube-system wait --for=condition=Ready pod -l component=kube-controller-manager --timeout=120s >/dev/null
  pinned=$(awk '$1=="k8s.io/kubernetes"{print $2}' "$here/k8s-bin/go.mod")
  server=$(kubectl version -o json | sed -n 's/.*"gitVersion": "\(v[^"]*\)".*/\1/p' | tail -1)
  [ "${server%.*}" = "${pinned%.*}" ] || log "warning: kind runs $server, CI pins $pinned"
  log "ready; export KUBECONFIG=$DIR/kubeconfig"
  ;;
down)
  kind delete cluster --name "$NAME"
  rm -f "$DIR/kubeconfig"
  ;;
*) log "usage: kind.sh up|down [DIR]"; exit 2;;
esac
