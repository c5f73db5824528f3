# Shared by the benchmark scripts: the soar binary, the peers, free ports, the nginx peer, the token
# and URI files, CPU accounting of the peers, and cleanup.
#   SOAR_BIN=/path/to/soar   use that binary as it is instead of building one
#   NGINX_READ_BODY=1        nginx reads each request body before it answers (see start_nginx)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d /tmp/soar-bench.XXXXXX)"
# Directories removed at exit, with the processes in pids.
dirs=("$work")
pids=()
cleanup() {
  for pid in "${pids[@]:-}"; do [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true; done
  if [[ -f "$work/nginx.pid" ]]; then
    local master
    master=$(cat "$work/nginx.pid")
    kill "$master" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$master" 2>/dev/null || break; sleep 0.05; done
  fi
  wait 2>/dev/null || true
  rm -rf "${dirs[@]}"
}
trap cleanup EXIT

# build_soar: sets soar, the binary under test: $SOAR_BIN when set (nothing is built), else a release build.
build_soar() {
  if [[ -n "${SOAR_BIN:-}" ]]; then
    [[ -x "$SOAR_BIN" ]] || { echo "SOAR_BIN=$SOAR_BIN is not an executable file" >&2; exit 2; }
    soar="$SOAR_BIN"
    return
  fi
  (cd "$root" && scripts/install-deps --test && swift build -c release --product soar >/dev/null)
  soar="$root/.build/release/soar"
}

# need_peers: h2load, curl and aioapns (scripts/install-deps --test) and nginx, installed only when missing.
need_peers() {
  if ! command -v h2load >/dev/null || ! command -v curl >/dev/null || ! python3 -c "import aioapns, jwt" 2>/dev/null; then
    "$root/scripts/install-deps" --test
  fi
  command -v nginx >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_emulator ARGS...: runs the emulator on free ports, sets emulator_url, emulator_ca, emulator_pid.
start_emulator() {
  "$soar" apns-emulator --port 0 --control-port 0 --dir "$work/emulator" --quiet "$@" >"$work/emulator.out" 2>"$work/emulator.err" &
  emulator_pid=$!
  pids+=("$emulator_pid")
  for _ in $(seq 100); do grep -q '^control:' "$work/emulator.out" 2>/dev/null && break; sleep 0.05; done
  emulator_url=$(sed -n 's/^APNs emulator: //p' "$work/emulator.out")
  emulator_ca=$(sed -n 's/^CA file: //p' "$work/emulator.out")
  [[ -n "$emulator_url" ]] || { echo "the emulator did not start:" >&2; cat "$work/emulator.err" >&2; exit 1; }
}

# start_plain_nginx: nginx, 1 worker, answering every HTTP/1.1 request 200 "[]" at once (the load
# generator's ceiling on this machine). Sets plain_nginx_url.
start_plain_nginx() {
  command -v nginx >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
  local port
  port=$(free_port)
  cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$port; location / { return 200 "[]"; } } }
CONF
  nginx -c "$work/nginx.conf"
  plain_nginx_url="http://127.0.0.1:$port"
}

# start_nginx: nginx 1 worker over TLS h2 answering 200 to POST /3/device/*, with the emulator's
# certificate, echoing apns-id as APNs does (aioapns matches answers by it). Sets nginx_url,
# nginx_port, nginx_worker (the worker's pid) and nginx_mode (one line saying how it answers).
#
# By default it answers from the location with `return 200`, that is as soon as a request's
# HEADERS frame is in, without reading the body. What then happens on the wire, per request
# (checked with nginx's debug log for soar, h2load and aioapns, 20,000 requests each): nginx sends
# the response HEADERS with END_STREAM, closes the stream and sends RST_STREAM(NO_ERROR); the
# client's DATA frame, already read in the same TLS record batch, arrives for a closed stream and is
# skipped ("http2 frame skip"), and nginx returns the window with a connection WINDOW_UPDATE.
# RFC 9113 section 8.1 allows exactly this, and all three clients count every answer as a success:
# they have already sent their whole body (nginx received one DATA frame per request), so the
# client's work is APNs' plus parsing one 13-byte frame.
#
# NGINX_READ_BODY=1 makes nginx read the whole body first, as APNs does (no RST_STREAM): the
# mirror module reads it in the precontent phase (its subrequest is answered by `return 204`),
# the missing static file's 404 becomes the 200. It costs nginx a subrequest per request.
# (The earlier set-up, a proxy_pass to a second server block, cost nginx so much per request that
# it capped every client near 22,000/s on 2 cores.)
start_nginx() {
  nginx_port=$(free_port)
  local location
  if [[ "${NGINX_READ_BODY:-0}" == 1 ]]; then
    mkdir -p "$work/empty"
    location="location /3/device/ { mirror /read-body; log_not_found off; error_page 404 =200 @ok; }
    location = /read-body { internal; return 204; }
    location @ok { add_header apns-id \$http_apns_id always; return 200; }"
    nginx_mode="nginx reads the body, then answers 200 (mirror module)"
  else
    location="location /3/device/ { add_header apns-id \$http_apns_id always; return 200; }"
    nginx_mode="nginx return 200: answers once the headers are in, then RST_STREAM(NO_ERROR), body skipped"
  fi
  cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work;
  server {
    listen 127.0.0.1:$nginx_port ssl http2;
    root $work/empty;
    ssl_certificate $work/emulator/server.pem;
    ssl_certificate_key $work/emulator/server-key.pem;
    http2_max_concurrent_streams 1000;
    keepalive_requests 100000000;
    $location
  }
}
CONF
  nginx -c "$work/nginx.conf"
  for _ in $(seq 100); do [[ -s "$work/nginx.pid" ]] && break; sleep 0.05; done
  nginx_worker=""
  for _ in $(seq 100); do nginx_worker=$(pgrep -P "$(cat "$work/nginx.pid")" | head -1) && [[ -n "$nginx_worker" ]] && break; sleep 0.05; done
  [[ -n "$nginx_worker" ]] || { echo "nginx did not start a worker:" >&2; cat "$work/nginx.err" >&2; exit 1; }
  nginx_url="https://127.0.0.1:$nginx_port"
}

# pin_server PID: with 2 CPUs or more, PID (the shared server) is pinned to the first CPU this
# script may use, and every client started through "${client_pin[@]}" to the second, so no client
# runs on the server's CPU (other processes and the kernel's softirq work still may). h2load_run
# uses client_pin too. With 1 CPU, or without taskset, nothing is pinned.
client_pin=()
pin_layout="not pinned"
pin_server() {
  local cpus
  read -r -a cpus < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')
  (( ${#cpus[@]} >= 2 )) && command -v taskset >/dev/null || return 0
  taskset -pc "${cpus[0]}" "$1" >/dev/null
  client_pin=(taskset -c "${cpus[1]}")
  pin_layout="nginx's worker on CPU ${cpus[0]}, each client on CPU ${cpus[1]} (other processes and softirq may use either)"
}

# provider_token KEYFILE KEYID TEAMID: an ES256 APNs provider token, made with PyJWT.
provider_token() {
  python3 -c 'import jwt,sys,time; print(jwt.encode({"iss":sys.argv[3],"iat":int(time.time())},open(sys.argv[1]).read(),algorithm="ES256",headers={"kid":sys.argv[2]}))' "$@"
}

# make_tokens N: $work/tokens.txt, N distinct 64-hex device tokens, and $work/uris.txt, the same
# tokens as https://127.0.0.1:NGINX_PORT/3/device/TOKEN for h2load -i (h2load_run points them at
# any server with -B).
make_tokens() {
  python3 -c "import sys; [print('%064x' % i) for i in range(int(sys.argv[1]))]" "$1" >"$work/tokens.txt"
  sed "s|^|https://127.0.0.1:${nginx_port:-443}/3/device/|" "$work/tokens.txt" >"$work/uris.txt"
}

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
peak_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
# File pages a process has mapped and touched (part of its RSS; the kernel's page cache).
file_kb() { awk '/RssFile/ {print $2}' "/proc/$1/status"; }

# CPU accounting of running processes from /proc/PID/stat (utime + stime, all threads):
#   busy_start PID...; <run a client>; busy_stop; busy_pct PID SECONDS; busy_rest CLIENT_CPU_SECONDS
# busy_pct prints the % of one core PID used between start and stop, over SECONDS (the client's own
# duration, the same one its rate is computed with). busy_rest prints the % of one core the rest of
# the machine used over the same wall time (from /proc/stat, minus the PIDs and the client's own
# CPU): the kernel's loopback softirq work, and anything else running, such as a build: when it is
# more than a few tens of percent, that round shared the machine and its figures are low.
clk_tck=$(getconf CLK_TCK)
ticks() { local s; s=$(<"/proc/$1/stat"); s=${s##*) }; local f=($s); echo $((f[11] + f[12])); }
machine_ticks() { local cpu u n s i w irq sirq st rest; read -r cpu u n s i w irq sirq st rest </proc/stat; echo $((u + n + s + irq + sirq + st)); }
declare -A busy_t0 busy_t1
busy_start() {
  busy_t0=(); busy_t1=(); local p; for p; do busy_t0[$p]=$(ticks "$p"); done
  busy_m0=$(machine_ticks); busy_w0=$EPOCHREALTIME
}
busy_stop() {
  busy_w1=$EPOCHREALTIME; busy_m1=$(machine_ticks)
  local p; for p in "${!busy_t0[@]}"; do busy_t1[$p]=$(ticks "$p"); done
}
busy_pct() { awk -v t="$(( busy_t1[$1] - busy_t0[$1] ))" -v hz="$clk_tck" -v s="$2" 'BEGIN {printf "%.0f", 100 * t / hz / s}'; }
busy_rest() {
  local p tracked=0
  for p in "${!busy_t0[@]}"; do tracked=$((tracked + busy_t1[$p] - busy_t0[$p])); done
  awk -v m="$((busy_m1 - busy_m0 - tracked))" -v hz="$clk_tck" -v c="$1" -v w0="$busy_w0" -v w1="$busy_w1" \
    'BEGIN {r = 100 * (m / hz - c) / (w1 - w0); printf "%.0f", r < 0 ? 0 : r}'
}

# h2load_run URL N CLIENTS STREAMS TOKEN: h2load POSTs the payload to the paths of $work/uris.txt
# on URL, after checking every request got a 2xx. Sets h2load_rate (requests/s, h2load's own),
# h2load_seconds (its "finished in"), h2load_cpu (its CPU seconds) and h2load_cores (its CPU time / its process's wall time,
# reading the URI file included).
# h2load starts every client at the file's first URI: with -c4 -n 100000 each connection sends the
# first 25,000 tokens once each, so no connection repeats a path, as with soar (whose 4 connections
# share the 100,000 tokens between them).
h2load_run() {
  local run out
  run=$(python3 "$root/Benchmarks/lib/measure.py" --stdout "$work/h2load.out" "${client_pin[@]}" h2load -n "$2" -c "$3" -m "$4" \
    -i "$work/uris.txt" -B "$1" -d "$work/payload.json" -H "authorization: bearer $5" -H "apns-topic: com.soar.bench")
  out=$(<"$work/h2load.out")
  grep -q " $2 succeeded, 0 failed" <<<"$out" && grep -q "status codes: $2 2xx" <<<"$out" ||
    { echo "h2load failed against $1:" >&2; echo "$out" >&2; exit 1; }
  h2load_rate=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
  h2load_seconds=$(awk -v n="$2" -v r="$h2load_rate" 'BEGIN {print n / r}')
  h2load_cpu=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['cpu_seconds'])" "$run")
  h2load_cores=$(python3 -c "import json,sys; r=json.loads(sys.argv[1]); print(r['cpu_seconds'] / r['seconds'])" "$run")
}

# shared_note WHAT REST...: a warning line when the rest of the machine (medians of busy_rest) used
# more than 30% of a core during WHAT: another process shared the 2 cores, so its rates are low.
shared_note() {
  local what=$1 r; shift
  r=$(median "$@")
  if (( ${r%.*} > 30 )); then
    printf '  WARNING: the rest of the machine used %.0f%% of a core during %s: another process shared the CPU, so these rates are low and their ratios uncertain\n' "$r" "$what"
  fi
}

median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
# verdict VALUE OP TARGET: "met" or "NOT MET"
verdict() { python3 -c "import sys; v,op,t=float(sys.argv[1]),sys.argv[2],float(sys.argv[3]); print('met' if (v>=t if op=='>=' else v<t) else 'NOT MET')" "$@"; }
