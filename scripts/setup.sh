#!/usr/bin/env bash
# Installs what the tests need on a fresh machine, skipping what is already there.
# Safe to run again. Used by scripts/test.sh (README's test command) and .ci/run.
set -euo pipefail

say() { printf 'setup: %s\n' "$*" >&2; }

# Rust targets: the environment sets RUSTUP_AUTO_INSTALL=0, so add the wasm target ourselves.
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# Debian packages: peers and browser for interop, fio and browser tests.
need_apt=()
command -v fio >/dev/null || need_apt+=(fio)
[ -f /usr/share/java/hdrhistogram.jar ] || need_apt+=(libhdrhistogram-java)
command -v java >/dev/null || need_apt+=(default-jre-headless)
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
# reports and sites in WebKit (Safari's engine): WebKitGTK's WebDriver and MiniBrowser, under Xvfb
command -v WebKitWebDriver >/dev/null || need_apt+=(webkit2gtk-driver)
command -v xvfb-run >/dev/null || need_apt+=(xvfb)
command -v xauth >/dev/null || need_apt+=(xauth)
# collector tests: loop devices, a filesystem signature, a mounted device
command -v losetup >/dev/null || need_apt+=(mount)
command -v mkfs.ext4 >/dev/null || need_apt+=(e2fsprogs)
command -v fsfreeze >/dev/null || need_apt+=(util-linux)
# the test command checks that the musl build of nines is a static binary
command -v file >/dev/null || need_apt+=(file)
# collector tests: the context lines' device numbers checked against iostat -x
command -v iostat >/dev/null || need_apt+=(sysstat)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    say "missing Debian packages: ${need_apt[*]}; run as root or install them"
    exit 1
  fi
  say "installing Debian packages: ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# Prometheus for the /metrics test (collector/tests/view.rs scrapes a live run with a real
# one); without its recommends (node exporter, alertmanager), which the test does not use.
if ! command -v prometheus >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    say "installing Debian package: prometheus"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  else
    say "prometheus is missing; install the Debian package prometheus"
    exit 1
  fi
fi

# Python peers.
if ! python3 -c 'import hdrh' 2>/dev/null; then
  say "installing Python hdrhistogram (module hdrh)"
  python3 -m pip install -q hdrhistogram
fi
# Query engines over `nines export`'s Parquet (collector/tests/export.rs): DuckDB, and Spark
# SQL in local mode (PySpark brings its own Spark; it runs on the Java 17 above).
for mod in duckdb pyspark; do
  if ! python3 -c "import $mod" 2>/dev/null; then
    say "installing Python $mod"
    python3 -m pip install -q "$mod"
  fi
done

# ---- viewer: npm packages of the browser tests and benchmark ------------------------------
# playwright-core drives the system Chromium (no browser download), binaryen gives wasm-opt,
# hdr-histogram-js is the benchmark's peer. Pinned in tests/browser/package.json.
viewer_tests="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
if [ ! -x "$viewer_tests/node_modules/.bin/wasm-opt" ] || [ ! -d "$viewer_tests/node_modules/playwright-core" ] \
   || [ ! -d "$viewer_tests/node_modules/hdr-histogram-js" ]; then
  if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      say "installing Debian packages: nodejs npm"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
    else
      say "npm is missing; install nodejs and npm"
      exit 1
    fi
  fi
  say "installing the browser tests' npm packages (tests/browser)"
  (cd "$viewer_tests" && npm install --no-audit --no-fund --silent)
fi
# ---- end viewer --------------------------------------------------------------------------

# ---- reports: Firefox for the report's Firefox test ---------------------------------------
# Stock Firefox ESR from Debian, driven over WebDriver BiDi by puppeteer-core (playwright only
# drives its own Firefox builds). puppeteer-core goes to a cache outside the repository.
if ! command -v firefox-esr >/dev/null && ! command -v firefox >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    say "installing Debian package: firefox-esr"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr >/dev/null
  else
    say "firefox is missing; install firefox-esr"
    exit 1
  fi
fi
ff_tools="${NINES_FIREFOX_TOOLS:-$HOME/.cache/nines/firefox-tools}"
if [ ! -d "$ff_tools/node_modules/puppeteer-core" ]; then
  say "installing puppeteer-core into $ff_tools"
  mkdir -p "$ff_tools"
  (cd "$ff_tools" && { [ -f package.json ] || echo '{"private":true}' > package.json; } \
    && npm install --no-audit --no-fund --silent puppeteer-core@24.43.1)
fi
# ---- end reports --------------------------------------------------------------------------
