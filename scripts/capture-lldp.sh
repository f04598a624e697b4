#!/usr/bin/env bash
# Reproduces the captures in collectors/testdata/lldp/: real lldpd daemons (Debian 12's lldpd
# 1.0.16) in network namespaces joined by veth pairs, as a rail of a RoCE fabric is cabled:
#
#   gpu007 ens9f0np0 -- swp12 leaf-r01 swp51 -- swp1 spine01
#   gpu007 ens9f1np1 -- swp12 leaf-r02 swp51 -- swp2 spine01
#
# The switches run lldpd as Cumulus Linux configures it (port ID = interface name, bridge and router
# capabilities advertised); the host runs lldpd's defaults (port ID = MAC, description = ifname).
# Writes, in the directory given (default: the current one):
#   lldpd-1.0.16-host-two-tors-neighbors.txt   gpu007:   lldpcli -f keyvalue show neighbors details
#   lldpd-1.0.16-leaf-neighbors.txt            leaf-r01: lldpcli -f keyvalue show neighbors details
#   lldpd-1.0.16-leaf-chassis.txt              leaf-r01: lldpcli -f keyvalue show chassis
# Needs root and the lldpd package. Sends LLDP frames only on the veth pairs it creates.
set -euo pipefail
out=${1:-.}
run=$(mktemp -d /run/lldp-capture.XXXX)
chmod 755 "$run"
namespaces="fp-gpu007 fp-leaf-r01 fp-leaf-r02 fp-spine01"
cleanup() {
  for ns in $namespaces; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
  done
  rm -rf "$run"
}
trap cleanup EXIT
for ns in $namespaces; do ip netns add "$ns"; done
cable() { # namespace, interface, MAC, namespace, interface, MAC
  ip link add "$2" netns "$1" address "$3" type veth peer "$5" netns "$4" address "$6"
}
cable fp-gpu007 ens9f0np0 b8:3f:d2:4a:10:70 fp-leaf-r01 swp12 1c:34:da:71:0c:0c
cable fp-gpu007 ens9f1np1 b8:3f:d2:4a:10:71 fp-leaf-r02 swp12 1c:34:da:72:0c:0c
cable fp-leaf-r01 swp51 1c:34:da:71:0c:33 fp-spine01 swp1 1c:34:da:81:00:01
cable fp-leaf-r02 swp51 1c:34:da:72:0c:33 fp-spine01 swp2 1c:34:da:81:00:02
for ns in $namespaces; do
  for dev in $(ip -n "$ns" -o link show | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip -n "$ns" link set "$dev" up
  done
done
switch='configure lldp portidsubtype ifname
configure system capabilities enabled bridge,router'
start() { # namespace, hostname, extra configuration
  printf 'configure system hostname %s\n%s\n' "$2" "${3:-}" > "$run/$1.conf"
  ip netns exec "$1" lldpd -u "$run/$1.socket" -p "$run/$1.pid" -O "$run/$1.conf" -I 'swp*,ens*'
}
lldpcli() { # namespace, arguments
  local ns=$1
  shift
  ip netns exec "$ns" lldpcli -u "$run/$ns.socket" "$@"
}
start fp-spine01 spine01 "$switch"
start fp-leaf-r01 leaf-r01 "$switch"
start fp-leaf-r02 leaf-r02 "$switch"
start fp-gpu007 gpu007
# Wait until every daemon has heard from every neighbour (lldpd sends a frame when a neighbour
# appears, then every 30 s).
seen() { lldpcli "$1" -f keyvalue show neighbors | grep -c '\.chassis\.name=' || true; }
for _ in $(seq 1 90); do
  [ "$(seen fp-gpu007)" -ge 2 ] && [ "$(seen fp-leaf-r01)" -ge 2 ] && break
  sleep 1
done
lldpcli fp-gpu007 -f keyvalue show neighbors details > "$out/lldpd-1.0.16-host-two-tors-neighbors.txt"
lldpcli fp-leaf-r01 -f keyvalue show neighbors details > "$out/lldpd-1.0.16-leaf-neighbors.txt"
lldpcli fp-leaf-r01 -f keyvalue show chassis > "$out/lldpd-1.0.16-leaf-chassis.txt"
