#!/usr/bin/env bash
# up.sh DIR — start a local Kubernetes control plane (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler) on 127.0.0.1, in the background,
# and return once it is usable. No containers, no kubelet: nodes are
# registered through the API (fake nodes, vk-sandbox).
#
# Interface
#   DIR       state directory (created; must be empty, absent, or a stopped
#             plane left by an earlier up.sh). Must not contain whitespace.
#   stdout    nothing.
#   stderr    progress lines "up.sh: ..."; on failure the failing
#             component's log tail.
#   exit      0 ready; 1 failed to start (everything started is stopped again,
#             logs are kept in DIR/logs); 2 bad usage / DIR busy (a plane is
#             already running there) / port in use.
# Files written
#   DIR/kubeconfig        admin (token, group system:masters), CA embedded
#   DIR/user.kubeconfig   user kora-e2e (group kora:testers, no RBAC grants)
#   DIR/env               KEY=value lines, no quoting, sourceable by sh:
#                         KUBECONFIG KORA_APISERVER_URL KORA_ADMIN_TOKEN
#                         KORA_USER_TOKEN KORA_CA_FILE KORA_K8S_BIN
#                         KORA_K8S_VERSION and the five KORA_*_PORT values
#   DIR/pids              "<component> <pid>" per line (used by down.sh)
#   DIR/logs/<component>.log, DIR/pki/, DIR/etcd/, DIR/sa.key, DIR/tokens.csv
# Environment (all optional)
#   KORA_K8S_BIN          directory with the four binaries (default: run
#                         build.sh, which builds once and then reuses its cache)
#   KORA_ETCD_PORT=12379 KORA_ETCD_PEER_PORT=12380 KORA_APISERVER_PORT=16443
#   KORA_KCM_PORT=17257  KORA_SCHEDULER_PORT=17259
#   KORA_UP_TIMEOUT=120   seconds for the whole start
#   KORA_APISERVER_ARGS, KORA_KCM_ARGS, KORA_SCHEDULER_ARGS  extra flags
#                         (word-split), e.g. KORA_KCM_ARGS=--node-monitor-grace-period=20s
# Node eviction: the controller-manager runs with the taint-eviction
# controller disabled, so pods on an API-registered node that misses
# heartbeats are never evicted (the node is still tainted unreachable).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log() { echo "up.sh: $*" >&2; }
usage() { log "usage: up.sh DIR"; exit 2; }
[ $# -eq 1 ] && [ -n "$1" ] || usage
case "$1" in *[[:space:]]*) log "DIR must not contain whitespace"; exit 2;; esac
DIR=$(realpath -m "$1")
MARK=.kora-cluster

ETCD_PORT=${KORA_ETCD_PORT:-12379}
ETCD_PEER_PORT=${KORA_ETCD_PEER_PORT:-12380}
API_PORT=${KORA_APISERVER_PORT:-16443}
KCM_PORT=${KORA_KCM_PORT:-17257}
SCHED_PORT=${KORA_SCHEDULER_PORT:-17259}
TIMEOUT=${KORA_UP_TIMEOUT:-120}

# --- DIR: refuse a running plane or foreign content; clear a stopped one ---
alive() { # pid: alive and a process of this DIR
  [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$DIR/"
}
if [ -e "$DIR" ]; then
  if [ -f "$DIR/$MARK" ]; then
    if [ -f "$DIR/pids" ]; then
      while read -r name pid; do
        if alive "$pid"; then log "a control plane is already running in $DIR ($name pid $pid); run down.sh $DIR first"; exit 2; fi
      done <"$DIR/pids"
    fi
    log "clearing stopped plane in $DIR"
    rm -rf "$DIR/etcd" "$DIR/pki" "$DIR/logs" "$DIR/pids" "$DIR/env" "$DIR/kubeconfig" \
           "$DIR/user.kubeconfig" "$DIR/sa.key" "$DIR/tokens.csv"
  elif [ -n "$(ls -A "$DIR")" ]; then
    log "$DIR exists, is not empty and was not made by up.sh"; exit 2
  fi
fi

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$ETCD_PORT" "$ETCD_PEER_PORT" "$API_PORT" "$KCM_PORT" "$SCHED_PORT"; do
  if port_busy "$p"; then log "port 127.0.0.1:$p is already in use"; exit 2; fi
done

if [ -n "${KORA_K8S_BIN:-}" ]; then BIN=$KORA_K8S_BIN
else BIN=$("$here/build.sh") || { log "build.sh failed"; exit 1; }; fi
for c in etcd kube-apiserver kube-controller-manager kube-scheduler; do
  [ -x "$BIN/$c" ] || { log "missing $BIN/$c"; exit 2; }
done
K8S_VERSION=$("$BIN/kube-apiserver" --version | awk '{print $2}')

start=$(date +%s.%N)
mkdir -p "$DIR/logs" "$DIR/pki"
touch "$DIR/$MARK"
: >"$DIR/pids"

# --- keys, certificates, tokens ---
log "generating certificates and tokens"
P=$DIR/pki
(
  set -e
  cd "$P"
  for ca in ca front-proxy-ca; do
    openssl req -x509 -newkey rsa:2048 -nodes -keyout $ca.key -out $ca.crt -days 365 \
      -subj "/CN=kora-test-$ca" 2>/dev/null
  done
  sign() { # name subject extensions [ca]
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" "$3" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA "${4:-ca}.crt" -CAkey "${4:-ca}.key" -set_serial "0x$(openssl rand -hex 8)" \
      -days 365 -out "$1.crt" -extfile "$1.ext" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
  }
  sign front-proxy-client "/CN=front-proxy-client" "extendedKeyUsage=clientAuth" front-proxy-ca
  sign apiserver "/CN=kube-apiserver" "extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  sign kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "extendedKeyUsage=clientAuth"
  openssl genrsa -out ../sa.key 2048 2>/dev/null
  chmod 600 ./*.key ../sa.key
) || { log "certificate generation failed (openssl)"; exit 1; }
ADMIN_TOKEN=$(openssl rand -hex 24)
USER_TOKEN=$(openssl rand -hex 24)
printf '%s,admin,1,"system:masters"\n%s,kora-e2e,2,"kora:testers"\n' "$ADMIN_TOKEN" "$USER_TOKEN" >"$DIR/tokens.csv"
chmod 600 "$DIR/tokens.csv"

URL=https://127.0.0.1:$API_PORT
CA_DATA=$(base64 -w0 <"$P/ca.crt")
kubeconfig() { # file user token
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: kora
  cluster:
    server: $URL
    certificate-authority-data: $CA_DATA
users:
- name: $2
  user:
    token: $3
contexts:
- name: kora-$2
  context:
    cluster: kora
    user: $2
    namespace: default
current-context: kora-$2
KC
  chmod 600 "$1"
}
kubeconfig "$DIR/kubeconfig" admin "$ADMIN_TOKEN"
kubeconfig "$DIR/user.kubeconfig" kora-e2e "$USER_TOKEN"
cat >"$DIR/env" <<ENV
KUBECONFIG=$DIR/kubeconfig
KORA_APISERVER_URL=$URL
KORA_ADMIN_TOKEN=$ADMIN_TOKEN
KORA_USER_TOKEN=$USER_TOKEN
KORA_CA_FILE=$P/ca.crt
KORA_K8S_BIN=$BIN
KORA_K8S_VERSION=$K8S_VERSION
KORA_ETCD_PORT=$ETCD_PORT
KORA_ETCD_PEER_PORT=$ETCD_PEER_PORT
KORA_APISERVER_PORT=$API_PORT
KORA_KCM_PORT=$KCM_PORT
KORA_SCHEDULER_PORT=$SCHED_PORT
ENV

# --- process handling ---
declare -A PID
launch() { # name binary args...
  local name=$1; shift
  setsid "$@" </dev/null >>"$DIR/logs/$name.log" 2>&1 &
  PID[$name]=$!
  echo "$name $!" >>"$DIR/pids"
}
fail() { # name message
  log "FAILED: $2"
  log "---- last 40 lines of $DIR/logs/$1.log ----"
  tail -n 40 "$DIR/logs/$1.log" >&2 || true
  log "---- end of $1 log; stopping the plane (logs kept in $DIR/logs) ----"
  KORA_KEEP_DIR=1 "$here/down.sh" "$DIR" >/dev/null 2>&1 || true
  exit 1
}
deadline=$(( $(date +%s) + TIMEOUT ))
wait_for() { # name description command...
  local name=$1 what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    kill -0 "${PID[$name]}" 2>/dev/null || fail "$name" "$name exited while waiting for $what"
    [ "$(date +%s)" -lt "$deadline" ] || fail "$name" "timed out after ${TIMEOUT}s waiting for $what"
    sleep 0.2
  done
}
elapsed() { awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}'; }

# --- etcd ---
log "starting etcd on 127.0.0.1:$ETCD_PORT"
launch etcd "$BIN/etcd" --name cp --data-dir "$DIR/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "cp=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
  --unsafe-no-fsync --log-level warn
etcd_ok() { curl -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"'; }
wait_for etcd "etcd /health" etcd_ok

# --- kube-apiserver ---
log "starting kube-apiserver $K8S_VERSION on $URL"
# shellcheck disable=SC2086
launch kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
  --endpoint-reconciler-type none \
  --cert-dir "$P" --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" \
  --client-ca-file "$P/ca.crt" \
  --requestheader-client-ca-file "$P/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$P/front-proxy-client.crt" --proxy-client-key-file "$P/front-proxy-client.key" \
  --service-cluster-ip-range 10.96.0.0/16 \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$DIR/sa.key" --service-account-signing-key-file "$DIR/sa.key" \
  --token-auth-file "$DIR/tokens.csv" \
  --authorization-mode Node,RBAC \
  --kubelet-preferred-address-types InternalIP \
  --kubelet-client-certificate "$P/kubelet-client.crt" --kubelet-client-key "$P/kubelet-client.key" \
  --allow-privileged=true \
  --profiling=false \
  ${KORA_APISERVER_ARGS:-}
api_ok() { [ "$(curl -fsS --max-time 3 --cacert "$P/ca.crt" "$URL/readyz")" = ok ]; }
wait_for kube-apiserver "kube-apiserver /readyz" api_ok
log "kube-apiserver ready after $(elapsed) s"

# --- kube-controller-manager, kube-scheduler ---
log "starting kube-controller-manager (127.0.0.1:$KCM_PORT) and kube-scheduler (127.0.0.1:$SCHED_PORT)"
# shellcheck disable=SC2086
launch kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig "$DIR/kubeconfig" --authentication-kubeconfig "$DIR/kubeconfig" --authorization-kubeconfig "$DIR/kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --leader-elect=false \
  --service-account-private-key-file "$DIR/sa.key" --root-ca-file "$P/ca.crt" \
  --cluster-signing-cert-file "$P/ca.crt" --cluster-signing-key-file "$P/ca.key" \
  --controllers '*,-taint-eviction-controller' \
  --profiling=false \
  ${KORA_KCM_ARGS:-}
# shellcheck disable=SC2086
launch kube-scheduler "$BIN/kube-scheduler" \
  --kubeconfig "$DIR/kubeconfig" --authentication-kubeconfig "$DIR/kubeconfig" --authorization-kubeconfig "$DIR/kubeconfig" \
  --bind-address 127.0.0.1 --secure-port "$SCHED_PORT" --leader-elect=false \
  --profiling=false \
  ${KORA_SCHEDULER_ARGS:-}
healthz() { [ "$(curl -fsSk --max-time 3 "https://127.0.0.1:$1/healthz")" = ok ]; }
wait_for kube-controller-manager "kube-controller-manager /healthz" healthz "$KCM_PORT"
wait_for kube-scheduler "kube-scheduler /healthz" healthz "$SCHED_PORT"
sa_ok() { curl -fsS --max-time 3 --cacert "$P/ca.crt" -H "Authorization: Bearer $ADMIN_TOKEN" \
  "$URL/api/v1/namespaces/default/serviceaccounts/default"; }
wait_for kube-controller-manager "ServiceAccount default/default" sa_ok

log "ready in $(elapsed) s; export KUBECONFIG=$DIR/kubeconfig (or: . $DIR/env)"
