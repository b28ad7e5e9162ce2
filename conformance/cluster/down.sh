#!/usr/bin/env bash
# down.sh DIR — stop a control plane started by up.sh DIR and remove DIR.
#
# Interface
#   DIR     the directory given to up.sh.
#   stdout  nothing.  stderr: progress lines "down.sh: ...".
#   exit    0 when nothing of the plane runs any more (also when DIR is
#           absent or already stopped); 1 if a process survived SIGKILL;
#           2 bad usage / DIR not made by up.sh.
# Processes are stopped by the pids recorded in DIR/pids, in reverse start
# order (SIGTERM, up to 5 s each, then SIGKILL), and only if their command line
# still refers to DIR (guards against reused pids).
# Environment: KORA_KEEP_DIR=1 keeps DIR (logs, certificates) after stopping.
set -euo pipefail
log() { echo "down.sh: $*" >&2; }
[ $# -eq 1 ] && [ -n "$1" ] || { log "usage: down.sh DIR"; exit 2; }
DIR=$(realpath -m "$1")
[ -e "$DIR" ] || { log "$DIR does not exist; nothing to do"; exit 0; }
[ -f "$DIR/.kora-cluster" ] || { log "$DIR was not made by up.sh; refusing to touch it"; exit 2; }

ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$DIR/"; }
pids=(); names=()
if [ -f "$DIR/pids" ]; then
  while read -r name pid; do
    [ -n "${pid:-}" ] || continue
    if ours "$pid"; then pids=("$pid" "${pids[@]}"); names=("$name" "${names[@]}"); fi
  done <"$DIR/pids"
fi
for i in "${!pids[@]}"; do
  pid=${pids[$i]}
  log "stopping ${names[$i]} (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  # wait for this one before the next (apiserver before etcd)
  for _ in $(seq 1 50); do ours "$pid" || break; sleep 0.1; done
done
left=()
for _ in $(seq 1 100); do
  left=(); for pid in "${pids[@]}"; do ours "$pid" && left+=("$pid"); done
  [ ${#left[@]} -eq 0 ] && break; sleep 0.1
done
for pid in "${left[@]}"; do log "killing pid $pid"; kill -KILL "$pid" 2>/dev/null || true; done
sleep 0.2
for pid in "${pids[@]}"; do ours "$pid" && { log "pid $pid survived SIGKILL"; exit 1; }; done
rm -f "$DIR/pids"
if [ "${KORA_KEEP_DIR:-0}" = 1 ]; then
  log "stopped; kept $DIR"
else
  rm -rf "$DIR"
  log "stopped; removed $DIR"
fi
