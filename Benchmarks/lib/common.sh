# Shared by the benchmark scripts: build, free ports, the nginx peer, and cleanup.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d /tmp/soar-bench.XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]:-}"; do [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true; done
  [[ -f "$work/nginx.pid" ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

build_soar() {
  (cd "$root" && scripts/install-deps --test && swift build -c release --product soar >/dev/null)
  soar="$root/.build/release/soar"
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
}

# start_nginx: nginx over TLS h2 answering 200 to POST /3/device/*, with the emulator's certificate.
# It echoes apns-id as APNs does, and proxies to a second nginx block so the request body is read
# before the answer: answering early and resetting the upload (what a bare `return 200` does) is
# not what APNs does. The upstream keeps enough idle connections and a long enough backlog that
# hundreds of concurrent streams never wait on new TCP connections.
start_nginx() {
  command -v nginx >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
  nginx_port=$(free_port)
  local upstream_port
  upstream_port=$(free_port)
  cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work;
  upstream ok { server 127.0.0.1:$upstream_port; keepalive 1024; }
  server {
    listen 127.0.0.1:$nginx_port ssl http2;
    ssl_certificate $work/emulator/server.pem;
    ssl_certificate_key $work/emulator/server-key.pem;
    http2_max_concurrent_streams 1000;
    keepalive_requests 100000000;
    location /3/device/ {
      proxy_pass http://ok; proxy_http_version 1.1; proxy_set_header Connection "";
      add_header apns-id \$http_apns_id always;  # clients such as aioapns match answers by it
    }
  }
  server {
    listen 127.0.0.1:$upstream_port backlog=4096;
    keepalive_requests 100000000;
    location / { return 200; }
  }
}
CONF
  nginx -c "$work/nginx.conf"
  nginx_url="https://127.0.0.1:$nginx_port"
}

# provider_token KEYFILE KEYID TEAMID: an ES256 APNs provider token, made with PyJWT.
provider_token() {
  python3 -c 'import jwt,sys,time; print(jwt.encode({"iss":sys.argv[3],"iat":int(time.time())},open(sys.argv[1]).read(),algorithm="ES256",headers={"kid":sys.argv[2]}))' "$@"
}

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
peak_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

# h2load_rate URL N CLIENTS STREAMS TOKEN: requests/s h2load reached, after checking nothing failed.
h2load_rate() {
  local out
  out=$(h2load -n "$2" -c "$3" -m "$4" -d "$work/payload.json" -H "authorization: bearer $5" -H "apns-topic: com.soar.bench" "$1/3/device/aabbccdd" 2>&1)
  grep -q " $2 succeeded, 0 failed" <<<"$out" || { echo "h2load failed against $1:" >&2; echo "$out" >&2; exit 1; }
  sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out"
}
