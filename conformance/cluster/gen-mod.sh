#!/usr/bin/env bash
# gen-mod.sh K8S_VERSION ETCD_VERSION
#   Regenerates k8s-bin/go.mod (one replace per staging module of the chosen
#   k8s.io/kubernetes release, taken from its own go.mod) and etcd-bin/go.mod,
#   then runs `go mod tidy` in both. Run once per version bump; commit go.mod
#   and go.sum; update K8S_VERSION/ETCD_VERSION in versions.env.
set -euo pipefail
K8S=${1:?usage: gen-mod.sh v1.X.Y v3.6.Z}
ETCD=${2:?usage: gen-mod.sh v1.X.Y v3.6.Z}
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
here=$(cd "$(dirname "$0")" && pwd)
minor=${K8S#v1.}; staging=v0.${minor}

gomod=$(go mod download -json "k8s.io/kubernetes@$K8S" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
gover=$(awk '$1=="go"{print $2; exit}' "$gomod")
godebug=$(awk '$1=="godebug"{print $2; exit}' "$gomod")

cd "$here/k8s-bin"
rm -f go.mod go.sum
go mod init local.invalid/k8sbin >/dev/null 2>&1
go mod edit -go="$gover"
[ -n "$godebug" ] && go mod edit -godebug="${godebug}"
go mod edit -require="k8s.io/kubernetes@$K8S"
for m in $(grep -oE 'k8s.io/[a-z0-9-]+ => \./staging/src' "$gomod" | awk '{print $1}'); do
  go mod edit -replace="$m=$m@$staging"
done
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  go mod edit -tool="k8s.io/kubernetes/cmd/$c"
done
go mod tidy

cd "$here/etcd-bin"
rm -f go.mod go.sum
go mod init local.invalid/etcdbin >/dev/null 2>&1
etcdmod=$(go mod download -json "go.etcd.io/etcd/server/v3@$ETCD" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
go mod edit -go="$(awk '$1=="go"{print $2; exit}' "$etcdmod")"
go mod edit -require="go.etcd.io/etcd/server/v3@$ETCD" -tool=go.etcd.io/etcd/server/v3
go mod tidy
echo "generated: kubernetes $K8S (go $gover, ${godebug:-no godebug}), etcd $ETCD"
