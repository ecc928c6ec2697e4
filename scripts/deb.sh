#!/usr/bin/env bash
# Builds the Debian package with cargo-deb (stripped `dist` profile, man pages for every
# command, shell completions, the systemd unit, the default configuration), and, as root on a
# Debian system, installs it and checks the installed files: `tracelint --version`,
# `man -w tracelint-check`, the completions, and `systemd-analyze verify` on the unit.
# Without cargo-deb or root it says why and skips; with CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/lib.sh
. scripts/lib.sh

if ! command -v cargo-deb >/dev/null 2>&1; then
  cargo install cargo-deb --locked --quiet || skip "cargo-deb cannot be installed"
fi
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb is not installed (not a Debian system)"

cargo build --locked --profile dist --quiet
bin=target/dist/tracelint
rm -rf target/assets
mkdir -p target/assets/man target/assets/completions
"$bin" man --dir target/assets/man
"$bin" completions bash > target/assets/completions/tracelint.bash
"$bin" completions zsh > target/assets/completions/_tracelint
"$bin" completions fish > target/assets/completions/tracelint.fish
size=$(stat -c %s "$bin")
echo "deb.sh: stripped binary: $size bytes"
deb=$(cargo deb --profile dist --no-build --no-strip | tail -n 1)
[ -f "$deb" ] || { echo "deb.sh: cargo deb made no package ($deb)" >&2; exit 1; }
echo "deb.sh: built $deb"
# The package's own view of what it holds.
dpkg-deb --contents "$deb" > target/assets/contents.txt
for f in ./usr/bin/tracelint ./etc/tracelint/tracelint.toml \
  ./usr/share/man/man1/tracelint-check.1 ./usr/share/man/man1/tracelint-watch.1 \
  ./usr/share/bash-completion/completions/tracelint ./usr/share/zsh/vendor-completions/_tracelint \
  ./usr/share/fish/vendor_completions.d/tracelint.fish tracelint-watch.service; do
  grep -q -- "$f" target/assets/contents.txt || { echo "deb.sh: $f missing from $deb" >&2; cat target/assets/contents.txt >&2; exit 1; }
done

[ "$(id -u)" = 0 ] || skip "installing the package needs root"
command -v dpkg >/dev/null 2>&1 || skip "dpkg is not installed"
command -v adduser >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq adduser >/dev/null
command -v man >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq man-db >/dev/null \
  || skip "man-db cannot be installed"
DEBIAN_FRONTEND=noninteractive dpkg -i "$deb"
/usr/bin/tracelint --version
man -w tracelint-check
man -w tracelint-watch
test -s /usr/share/bash-completion/completions/tracelint
test -s /usr/share/zsh/vendor-completions/_tracelint
test -s /usr/share/fish/vendor_completions.d/tracelint.fish
getent passwd tracelint >/dev/null
unit=$(dpkg -L tracelint | grep '/tracelint-watch.service$' | head -n 1)
[ -n "$unit" ] || { echo "deb.sh: the unit is not installed" >&2; exit 1; }
/usr/bin/tracelint --config /etc/tracelint/tracelint.toml rules > /dev/null
if command -v systemd-analyze >/dev/null 2>&1; then
  systemd-analyze verify "$unit"
else
  skip "systemd-analyze is not installed (the package is installed and checked otherwise)"
fi
echo "deb.sh: package installed and checked: $deb"
