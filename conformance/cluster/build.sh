#!/usr/bin/env bash
# build.sh — build (or reuse) kube-apiserver, kube-controller-manager,
# kube-scheduler and etcd from the Go module proxy.
#
# Usage:   conformance/cluster/build.sh
# Output:  stdout: exactly one line, the bin directory
#            ${KORA_CACHE:-$HOME/.cache/kora}/k8s-<k8s version>/bin
#          stderr: progress lines ("build.sh: ...").
# Exit:    0 when the four binaries exist and report the pinned versions.
# Env:     KORA_CACHE        cache root (default $HOME/.cache/kora)
#          KORA_BUILD_JOBS   go build -p (default 2; ~2 GiB RAM per job)
#          KORA_FORCE_BUILD  =1 rebuilds even if the cache is valid
# Versions come from k8s-bin/go.mod and etcd-bin/go.mod (see gen-mod.sh).
# The cache is valid when `kube-apiserver --version` prints the pinned
# version and `etcd --version` the pinned etcd version; concurrent callers
# are serialised with flock.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log() { echo "build.sh: $*" >&2; }

K8S_VERSION=$(awk '$1=="k8s.io/kubernetes"{print $2; exit} $1=="require" && $2=="k8s.io/kubernetes"{print $3; exit}' "$here/k8s-bin/go.mod")
ETCD_VERSION=$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2; exit} $1=="require" && $2=="go.etcd.io/etcd/server/v3"{print $3; exit}' "$here/etcd-bin/go.mod")
[ -n "$K8S_VERSION" ] && [ -n "$ETCD_VERSION" ] || { log "cannot read pinned versions from go.mod"; exit 1; }

out=${KORA_CACHE:-$HOME/.cache/kora}/k8s-$K8S_VERSION
bin=$out/bin
mkdir -p "$out"

k8s_ok() {
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    [ -x "$bin/$c" ] && "$bin/$c" --version 2>/dev/null | grep -qx "Kubernetes $K8S_VERSION" || return 1
  done
}
etcd_ok() { [ -x "$bin/etcd" ] && "$bin/etcd" --version 2>/dev/null | grep -qx "etcd Version: ${ETCD_VERSION#v}"; }

exec 9>"$out/.lock"
flock 9
if [ "${KORA_FORCE_BUILD:-0}" != 1 ] && k8s_ok && etcd_ok; then
  log "reusing $bin (kubernetes $K8S_VERSION, etcd $ETCD_VERSION)"
  echo "$bin"; exit 0
fi

command -v go >/dev/null || { log "go not found on PATH"; exit 1; }
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false"
jobs=${KORA_BUILD_JOBS:-2}
tmp=$out/bin.tmp.$$
rm -rf "$tmp"; mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

if [ "${KORA_FORCE_BUILD:-0}" = 1 ] || ! k8s_ok; then
  minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
  date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    ld+=" -X $p.gitTreeState=clean -X $p.gitCommit=goproxy-$K8S_VERSION -X $p.buildDate=$date"
  done
  log "downloading modules for kubernetes $K8S_VERSION"
  t=$SECONDS
  (cd "$here/k8s-bin" && go mod download) >&2
  log "modules ready in $((SECONDS - t)) s"
  log "compiling kube-apiserver, kube-controller-manager, kube-scheduler (-p $jobs; cold: 5-15 min on 2 cores)"
  t=$SECONDS
  (cd "$here/k8s-bin" && go build -p "$jobs" -trimpath -ldflags "$ld" -o "$tmp/" \
     k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
     k8s.io/kubernetes/cmd/kube-scheduler) >&2
  log "kubernetes binaries built in $((SECONDS - t)) s"
else
  log "kubernetes binaries in cache are current"
  cp -p "$bin"/kube-apiserver "$bin"/kube-controller-manager "$bin"/kube-scheduler "$tmp/"
fi

if [ "${KORA_FORCE_BUILD:-0}" = 1 ] || ! etcd_ok; then
  log "compiling etcd $ETCD_VERSION"
  t=$SECONDS
  (cd "$here/etcd-bin" && go mod download && \
   go build -p "$jobs" -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3) >&2
  log "etcd built in $((SECONDS - t)) s"
else
  cp -p "$bin/etcd" "$tmp/"
fi

rm -rf "$bin"; mv "$tmp" "$bin"; trap - EXIT
k8s_ok && etcd_ok || { log "built binaries do not report the pinned versions"; exit 1; }
log "done in $((SECONDS - start)) s: $bin"
echo "$bin"
