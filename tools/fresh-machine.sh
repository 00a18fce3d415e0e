#!/usr/bin/env bash
# Runs the README's Quick start, as written, on a freshly installed Debian 12
# (debootstrap minbase + git, in a chroot), the way a new user's machine
# would: nothing installed beyond what the commands themselves install.
#   usage (as root): tools/fresh-machine.sh [REPO]
#   REPO defaults to the current folder; its committed HEAD is what is tested.
#   FRESH_KEEP=1 keeps the chroot folder for a look afterwards.
#   The SLICEGEN_* variables of tests/run.sh (SLICEGEN_SEED,
#   SLICEGEN_REQUIRE_CROSS, ...) are passed on to the commands; nothing else
#   of this machine's environment is.
# Prints each command's last lines (a failed command's failures too) and,
# last, one verdict line; exit 0 only when every Quick start command
# succeeded. .ci/run runs it, so that a missing install step cannot land.
set -uo pipefail
repo=$(cd "${1:-.}" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: run as root (debootstrap and chroot)"; exit 2; }
command -v debootstrap > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap > /dev/null ||
    { echo "fresh-machine: cannot install debootstrap"; exit 2; }
# The Debian mirror this machine's apt already uses.
mirror=$(grep -rhoE '^(deb|URIs:) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2> /dev/null |
    head -n1 | awk '{print $2}')
[ -n "$mirror" ] || { echo "fresh-machine: no Debian mirror in this machine's apt sources"; exit 2; }
root=$(mktemp -d /tmp/fresh-machine.XXXXXX)
mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2> /dev/null; done
    [ -n "${FRESH_KEEP:-}" ] && echo "fresh-machine: kept $root" || rm -rf "$root"
}
trap cleanup EXIT
echo "== debootstrap bookworm (minbase + git) into $root"
debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
    { echo "fresh-machine: debootstrap failed (see $root.debootstrap.log)"; exit 2; }
rm -f "$root.debootstrap.log"
for d in proc sys dev dev/pts; do mount --bind "/$d" "$root/$d" && mounted+=("$root/$d"); done
cp /etc/resolv.conf "$root/etc/" 2> /dev/null
# The network's own certificate authorities (a proxy's, added on this machine
# under /usr/local/share/ca-certificates) belong to the network, as
# resolv.conf does: npm's registry is reached over HTTPS through them.
if compgen -G '/usr/local/share/ca-certificates/*.crt' > /dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" &&
        chroot "$root" update-ca-certificates > /dev/null 2>&1 ||
        { echo "fresh-machine: cannot add this network's certificate authorities"; exit 2; }
fi
git clone -q "$repo" "$root/root/project" || { echo "fresh-machine: git clone failed"; exit 2; }
# The Quick start block of the README: the first fenced block after a heading that names it.
cmds=$(awk 'tolower($0) ~ /^#+ .*quick ?start/ {q=1; next} q && /^#+ / {exit}
            q && /^```/ {b=!b; if(!b) exit; next} q && b {print}' "$repo/README.md" | sed 's/^\$ //' | grep -v '^\s*\(#\|$\)')
[ -n "$cmds" ] || { echo "fresh-machine: no Quick start code block in README.md"; exit 1; }
passed_on=()
while IFS= read -r name; do passed_on+=("$name=${!name}"); done < <(compgen -e | grep '^SLICEGEN_')
n=0 failed=0
while IFS= read -r cmd; do
    n=$((n + 1))
    echo "== command $n: $cmd"
    start=$(date +%s)
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${passed_on[@]}" \
        /bin/bash -c "cd /root/project && $cmd" > "$root/cmd$n.log" 2>&1 < /dev/null
    rc=$?
    [ $rc -eq 0 ] || grep -E '^(FAIL|Traceback|E  |CMake Error|.*(error|Error):)' "$root/cmd$n.log" | head -n 40
    tail -n 12 "$root/cmd$n.log"
    echo "-- exit $rc after $(($(date +%s) - start)) s"
    [ $rc -eq 0 ] || failed=$((failed + 1))
done <<< "$cmds"
if [ $failed -eq 0 ]; then
    echo "fresh-machine: all $n Quick start commands passed on a fresh Debian 12"
else
    echo "fresh-machine: $failed of $n Quick start commands failed on a fresh Debian 12"
    exit 1
fi
