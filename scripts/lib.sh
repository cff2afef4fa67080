# lib.sh: what the scripts here share. Source it after setting prog (the
# script's name, for messages); it sets here (the repository's root).
# shellcheck shell=bash

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$prog: $*" >&2; exit 2; }
say() { echo "$prog: $*" >&2; }

# usage prints the script's header comment (from its second line to the
# set -euo line) as its help.
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# check_threads dies unless each of its arguments is a thread count.
check_threads() {
	local n
	for n in "$@"; do
		[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] || die "--threads: not a thread count: $n"
	done
}

# apt_install package...: installs Debian packages, saying why.
apt_install() {
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || die "need root (or sudo) to install $*; install them and rerun"
		sudo=sudo
	fi
	command -v apt-get >/dev/null || die "no apt-get to install $*; install them by hand and rerun"
	say "installing $* with apt-get (apt-get update && apt-get install -y $*)"
	$sudo apt-get update -qq >&2 || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2 || die "apt-get install $* failed"
}

# need_command command package why: installs package when command is
# missing, saying why it is needed.
need_command() {
	command -v "$1" >/dev/null && return
	say "$1 is not installed: $3"
	apt_install "$2"
	hash -r
	command -v "$1" >/dev/null || die "$1 is still missing after apt-get install $2"
}

# find_go sets GO to the go command.
find_go() {
	GO=$(command -v go || true)
	[ -n "$GO" ] || GO=/usr/local/go/bin/go
	[ -x "$GO" ] || die "no go command (looked on the PATH and at /usr/local/go/bin/go)"
}
