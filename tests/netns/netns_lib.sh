# shellcheck shell=bash
# The emulated two-level network, shared by two_level.sh and bench/model_vs_measured_netns.sh
# (source it; the caller sets RATE, and WORK if it wants it removed on exit). Layout, tbf settings
# and address range: see two_level.sh's header. Skips (exit 77) where netns or tbf are missing.
PREFIX="rl$$"

skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root to create network namespaces (CI runs as root)"
command -v ip >/dev/null && command -v tc >/dev/null || skip "needs iproute2 (ip, tc)"

cleanup() {
  local ns
  [ -n "${WORK:-}" ] && [ "${1:-}" = final ] && rm -rf "$WORK"
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${PREFIX}-" || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
}
trap 'cleanup final' EXIT
trap 'exit 130' INT TERM

ip netns add "${PREFIX}-probe" 2>/dev/null || skip "cannot create network namespaces here"
ip -n "${PREFIX}-probe" link add p0 type veth peer name p1 2>/dev/null || skip "no veth support"
tc -n "${PREFIX}-probe" qdisc add dev p0 root tbf rate "${RATE:-400mbit}" burst 128kb latency 5ms 2>/dev/null ||
  skip "no tbf qdisc in this kernel"
ip netns del "${PREFIX}-probe"

rank_ns() { echo "${PREFIX}-n$1-r$2"; }
rank_addr() { echo "198.18.$1.$(($2 + 1))"; }

# Builds NODES nodes of RPN ranks each.
build() {
  local nodes=$1 rpn=$2 n r
  ip netns add "${PREFIX}-core"
  ip -n "${PREFIX}-core" link add br0 type bridge
  ip -n "${PREFIX}-core" link set br0 up
  for ((n = 0; n < nodes; n++)); do
    local node="${PREFIX}-n$n"
    ip netns add "$node"
    ip -n "$node" link add br0 type bridge
    ip -n "$node" link set br0 up
    ip -n "$node" link add uplink type veth peer name "d$n" netns "${PREFIX}-core"
    ip -n "$node" link set uplink master br0 up
    ip -n "${PREFIX}-core" link set "d$n" master br0 up
    # The uplink, shaped at both ends: node -> core on "uplink", core -> node on "dN".
    tc -n "$node" qdisc add dev uplink root tbf rate "$RATE" burst 128kb latency 5ms
    tc -n "${PREFIX}-core" qdisc add dev "d$n" root tbf rate "$RATE" burst 128kb latency 5ms
    for ((r = 0; r < rpn; r++)); do
      local ns
      ns=$(rank_ns "$n" "$r")
      ip netns add "$ns"
      ip -n "$ns" link set lo up
      ip -n "$node" link add "r$r" type veth peer name eth0 netns "$ns"
      ip -n "$node" link set "r$r" master br0 up
      ip -n "$ns" addr add "$(rank_addr "$n" "$r")/15" dev eth0
      ip -n "$ns" link set eth0 up
    done
  done
}
