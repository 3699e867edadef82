# Shared by Benchmarks/run and Benchmarks/compare (sourced, not run): a work folder and the
# processes started in it, cleaned up on exit, and small helpers.
say() { echo "== $*" >&2; }

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits until a line containing $2 appears in file $1 (30 s at most).
wait_for() {
  for _ in $(seq 300); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "timed out waiting for '$2' in $1" >&2; cat "$1" >&2; return 1
}
median() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
field() { python3 -c 'import sys,json; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }

# Prefixes that put a server / the load generator on its CPU (`taskset`), or nothing when PIN=0
# (the scheduler places server and load; figures then include their competing for a core).
# Prefixes, not functions: a background function is a subshell, so `$!` would not be the server.
# Call once SERVER_CPU and LOAD_CPU are set.
choose_pinning() {
  if [ "${PIN:-1}" = 0 ]; then
    on_server_cpu=() on_load_cpu=()
    pinning="server and load unpinned" server_where=""
  else
    on_server_cpu=(taskset -c "$SERVER_CPU") on_load_cpu=(taskset -c "$LOAD_CPU")
    pinning="server pinned to CPU $SERVER_CPU, load generator to CPU $LOAD_CPU" server_where=" on CPU $SERVER_CPU"
  fi
}
