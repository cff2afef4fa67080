#!/usr/bin/env bash
# compare-spin.sh: swapcheck against SPIN on `merged`, side by side, in one run
# (issue 3, "How it is judged").
#
# For each thread count N it verifies
#   - SPIN:  testdata/spin/merged.pml with -DN=N
#            (spin -a; gcc -O2 -DSAFETY pan.c; ./pan -m100000), and
#   - ours:  explore -protocol merged -threads N -strategy S -quiet -json
#            for each complete strategy S (dfs, and states when the tool has
#            it; -list says),
# measures each verification's wall time and peak RSS with /usr/bin/time,
# and prints one Markdown table on stdout (progress goes to stderr).
#
# Only the verification is timed, on both sides: pan.c is compiled with gcc,
# and ./cmd/explore with go build, before the clock starts. The explore
# binary is the one `go run ./cmd/explore` would run.
#
# Usage: scripts/compare-spin.sh [options]
#   --threads "4 5 6"   thread counts to compare (default "4 5 6")
#   --max N             compare 4..N instead
#   --strategies "S.."  our strategies (default: dfs, plus states if listed)
#   --timeout SECONDS   per run (default 600); a run cut off says "timed out"
#   --mem-limit MB      address-space limit per run (default: two thirds of
#                       the memory available at the start); past it "out of
#                       memory"
#   --repeat R          runs that take under 10 s are run R times, and the
#                       fastest kept, on both sides (default 3)
#   --collapse          build pan with -DCOLLAPSE (less memory, slower)
#   --workers W         pass -workers W to explore (default: its own, nproc)
#   --one-minute        also find the largest N our fastest strategy verifies
#                       within 60 s (N = 4, 5, ... until one is cut off)
#   -h, --help
#
# Needs: go, spin, gcc, /usr/bin/time, timeout. SPIN, gcc and GNU time are
# installed with apt-get (Debian packages spin, gcc, time) when missing.
set -euo pipefail

prog=compare-spin
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
threads="4 5 6"
strategies=""
timeout_s=600
mem_limit_mb=""
repeat=3
collapse=0
workers=""
one_minute=0

while [ $# -gt 0 ]; do
	case "$1" in
	--threads) threads=${2:?}; shift 2 ;;
	--max) threads=$(seq -s ' ' 4 "${2:?}"); shift 2 ;;
	--strategies) strategies=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--mem-limit) mem_limit_mb=${2:?}; shift 2 ;;
	--repeat) repeat=${2:?}; shift 2 ;;
	--collapse) collapse=1; shift ;;
	--workers) workers=${2:?}; shift 2 ;;
	--one-minute) one_minute=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done
# shellcheck disable=SC2086 # the list is split on purpose
check_threads $threads
[[ $timeout_s =~ ^[0-9]+$ ]] && [ "$timeout_s" -ge 1 ] || die "--timeout: want whole seconds, got $timeout_s"
[[ $repeat =~ ^[0-9]+$ ]] && [ "$repeat" -ge 1 ] || die "--repeat: want a count, got $repeat"

# ---- tools ----

need_command spin spin "the comparison needs SPIN"
need_command gcc gcc "SPIN's verifier pan.c needs it"
[ -x /usr/bin/time ] || { say "GNU time (/usr/bin/time) is not installed: it measures peak memory"; apt_install time; }
command -v timeout >/dev/null || die "timeout (coreutils) is missing"
find_go

if [ -z "$mem_limit_mb" ]; then
	avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
	mem_limit_mb=$((avail_kb * 2 / 3 / 1024))
fi
[[ $mem_limit_mb =~ ^[0-9]+$ ]] && [ "$mem_limit_mb" -ge 1024 ] || die "--mem-limit: want at least 1024 (MB), got $mem_limit_mb"

load_start=$(cut -d' ' -f1 /proc/loadavg)
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-spin.XXXXXX")
trap 'rm -rf "$work"' EXIT

say "building ./cmd/explore"
# What the binary is built from, taken now: the tree may change during the run.
built_from=$(cd "$here" && git describe --always --dirty 2>/dev/null || echo "a tree without git metadata")
(cd "$here" && "$GO" build -o "$work/explore" ./cmd/explore) || die "go build ./cmd/explore failed"

if [ -z "$strategies" ]; then
	listed=$("$work/explore" -list | awk '/^strategies:/ {on=1; next} /^[a-z]/ {on=0} on {print $1}')
	strategies=dfs
	if grep -qx states <<<"$listed"; then strategies="dfs states"; fi
fi
for s in $strategies; do
	"$work/explore" -list | awk '/^strategies:/ {on=1; next} /^[a-z]/ {on=0} on {print $1}' | grep -qx "$s" ||
		die "explore has no strategy $s (explore -list)"
done

# ---- one measured run ----
# measure NAME TIMEOUT CMD...: runs CMD under the limits; sets m_status (ok,
# timeout, oom, failed), m_secs (wall, 3 decimals), m_kb (peak RSS) and
# leaves stdout and stderr in $work/NAME.out and $work/NAME.err.
measure() {
	local name=$1 limit=$2
	shift 2
	local out="$work/$name.out" err="$work/$name.err" tf="$work/$name.time" rc=0 t0 t1
	t0=$(date +%s%N)
	(
		ulimit -v $((mem_limit_mb * 1024))
		exec /usr/bin/time -o "$tf" -f '%e %M' timeout -k 10 "$limit" "$@"
	) >"$out" 2>"$err" || rc=$?
	t1=$(date +%s%N)
	m_secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')
	m_kb=$(tail -n 1 "$tf" | awk '{print $2}')
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		m_status=timeout
	elif grep -qi 'out of memory' "$out" "$err"; then
		m_status=oom
	elif [ "$rc" -ne 0 ]; then
		m_status=failed
		say "$* exited with status $rc:"
		tail -n 20 "$err" >&2
	else
		m_status=ok
	fi
	return 0
}

# best NAME CMD...: measure, and repeat a short successful run, keeping the
# fastest; sets b_status, b_secs, b_kb, b_out (the kept run's stdout file)
best() {
	local name=$1 i
	shift
	measure "$name.1" "$timeout_s" "$@"
	b_status=$m_status b_secs=$m_secs b_kb=$m_kb b_out="$work/$name.1.out"
	if [ "$m_status" = ok ] && awk -v s="$m_secs" 'BEGIN {exit !(s < 10)}'; then
		for ((i = 2; i <= repeat; i++)); do
			measure "$name.$i" "$timeout_s" "$@"
			if [ "$m_status" = ok ] && awk -v a="$m_secs" -v b="$b_secs" 'BEGIN {exit !(a < b)}'; then
				b_secs=$m_secs b_kb=$m_kb b_out="$work/$name.$i.out"
			fi
		done
	fi
}

mb() { awk -v k="$1" 'BEGIN {printf "%.0f MB", k / 1024}'; }
secs() { awk -v s="$1" 'BEGIN {if (s < 10) printf "%.2f s", s; else printf "%.1f s", s}'; }
group() { awk -v n="$1" 'BEGIN {s = sprintf("%d", n); o = ""; while (length(s) > 3) {o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3)}; print s o}'; }
failure() { # status limit secs: the table's words for a run that did not finish
	case "$1" in
	timeout) echo "timed out (> $2 s)" ;;
	oom) echo "out of memory (limit $mem_limit_mb MB, after $(secs "$3"))" ;;
	*) echo "failed (see stderr)" ;;
	esac
}

# ---- SPIN ----
spin_flags="-O2 -DSAFETY"
[ "$collapse" -eq 1 ] && spin_flags="$spin_flags -DCOLLAPSE"
spin_version=$(spin -V 2>&1 | head -n 1)

declare -A spin_states spin_time spin_mem spin_secs spin_kb
run_spin() {
	local n=$1 dir="$work/spin$1"
	mkdir -p "$dir"
	say "SPIN, $n threads: spin -a, gcc $spin_flags (untimed), then ./pan -m100000"
	(cd "$dir" && spin -DN="$n" -a "$here/testdata/spin/merged.pml" >spin.log 2>&1) ||
		{ cat "$dir/spin.log" >&2; die "spin -a failed on testdata/spin/merged.pml"; }
	# shellcheck disable=SC2086
	(cd "$dir" && gcc $spin_flags -o pan pan.c 2>gcc.log) || { cat "$dir/gcc.log" >&2; die "gcc pan.c failed"; }
	best "spin$n" "$dir/pan" -m100000
	if [ "$b_status" != ok ]; then
		spin_states[$n]="—" spin_time[$n]=$(failure "$b_status" "$timeout_s" "$b_secs") spin_mem[$n]="—"
		spin_secs[$n]="" spin_kb[$n]=""
		say "SPIN, $n threads: ${spin_time[$n]}"
		return
	fi
	if ! grep -q 'errors: 0' "$b_out" || grep -qiE 'search not completed|depth too small' "$b_out"; then
		cat "$b_out" >&2
		die "SPIN did not verify merged with $n threads (output above)"
	fi
	local st
	st=$(awk '/states, stored/ {print $1; exit}' "$b_out")
	spin_states[$n]=$(group "$st") spin_time[$n]=$(secs "$b_secs") spin_mem[$n]=$(mb "$b_kb")
	spin_secs[$n]=$b_secs spin_kb[$n]=$b_kb
	say "SPIN, $n threads: $st states, $b_secs s, $(mb "$b_kb")"
}

# ---- ours ----
declare -A our_states our_time our_mem our_secs our_kb
json_field() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2" | head -n 1; }
run_ours() {
	local n=$1 s=$2 k="$1/$2"
	local args=(-protocol merged -threads "$n" -strategy "$s" -quiet -json)
	[ -n "$workers" ] && args+=(-workers "$workers")
	say "ours, $n threads, -strategy $s: explore ${args[*]}"
	best "ours$n-$s" "$work/explore" "${args[@]}"
	if [ "$b_status" != ok ]; then
		our_states[$k]="—" our_time[$k]=$(failure "$b_status" "$timeout_s" "$b_secs") our_mem[$k]="—"
		our_secs[$k]="" our_kb[$k]=""
		say "ours, $n threads, $s: ${our_time[$k]}"
		return
	fi
	local verdict st
	verdict=$(json_field verdict "$b_out")
	st=$(json_field states "$b_out")
	if [ "$verdict" != verified ]; then
		cat "$b_out" >&2
		die "explore did not verify merged with $n threads (-strategy $s): verdict $verdict"
	fi
	our_states[$k]=$(group "$st") our_time[$k]=$(secs "$b_secs") our_mem[$k]=$(mb "$b_kb")
	our_secs[$k]=$b_secs our_kb[$k]=$b_kb
	say "ours, $n threads, $s: $st states, $b_secs s, $(mb "$b_kb")"
}

ratio() { # spin ours: "x.y×" (SPIN's figure over ours: above 1, ours is better)
	if [ -z "$1" ] || [ -z "$2" ]; then echo "—"; return; fi
	awk -v a="$1" -v b="$2" 'BEGIN {if (b <= 0) b = 0.001; r = a / b; if (r < 10) printf "%.2f×", r; else printf "%.0f×", r}'
}

for n in $threads; do
	run_spin "$n"
	for s in $strategies; do run_ours "$n" "$s"; done
done

minute_line=""
if [ "$one_minute" -eq 1 ]; then
	# the fastest strategy at the largest N compared
	fastest="" fastest_secs=""
	last_n=${threads##* }
	for s in $strategies; do
		v=${our_secs["$last_n/$s"]:-}
		if [ -n "$v" ] && { [ -z "$fastest_secs" ] || awk -v a="$v" -v b="$fastest_secs" 'BEGIN {exit !(a < b)}'; }; then
			fastest=$s fastest_secs=$v
		fi
	done
	[ -n "$fastest" ] || fastest=${strategies%% *}
	largest=0 n=4
	while :; do
		args=(-protocol merged -threads "$n" -strategy "$fastest" -quiet -json)
		[ -n "$workers" ] && args+=(-workers "$workers")
		say "one minute: $n threads, -strategy $fastest"
		measure "minute$n" 60 "$work/explore" "${args[@]}"
		if [ "$m_status" != ok ] || [ "$(json_field verdict "$work/minute$n.out")" != verified ] ||
			! awk -v s="$m_secs" 'BEGIN {exit !(s <= 60)}'; then
			say "one minute: $n threads: $(failure "$m_status" 60 "$m_secs") ($m_secs s)"
			break
		fi
		say "one minute: $n threads verified in $m_secs s, $(mb "$m_kb")"
		largest=$n last_secs=$m_secs last_kb=$m_kb last_states=$(json_field states "$work/minute$n.out")
		n=$((n + 1))
	done
	if [ "$largest" -gt 0 ]; then
		minute_line="Largest thread count verified within one minute (-strategy $fastest): **$largest threads** ($(group "$last_states") states in $(secs "$last_secs"), $(mb "$last_kb")); $n threads did not finish within 60 s."
	else
		minute_line="No thread count from 4 up was verified within one minute (-strategy $fastest)."
	fi
fi

# ---- the table ----
cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs ($cpu), $(awk '/^MemTotal:/ {printf "%.0f GB", $2 / 1048576}' /proc/meminfo) RAM; $spin_version, pan built with gcc $spin_flags, run with -m100000 (one core); $("$GO" version | awk '{print $3}'), explore (built from $built_from) -workers ${workers:-default ($(nproc))}. Wall time and peak RSS from /usr/bin/time; per-run limits $timeout_s s and $mem_limit_mb MB; runs under 10 s: fastest of $repeat. Load average (1 min) at the start $load_start, at the end $(cut -d' ' -f1 /proc/loadavg)."
echo
echo "| N | SPIN states | SPIN time | SPIN memory | ours (-strategy) | ours states | ours time | ours memory | time ratio SPIN/ours | memory ratio SPIN/ours |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in $threads; do
	for s in $strategies; do
		k="$n/$s"
		echo "| $n | ${spin_states[$n]} | ${spin_time[$n]} | ${spin_mem[$n]} | $s | ${our_states[$k]} | ${our_time[$k]} | ${our_mem[$k]} | $(ratio "${spin_secs[$n]}" "${our_secs[$k]}") | $(ratio "${spin_kb[$n]}" "${our_kb[$k]}") |"
	done
done
if [ -n "$minute_line" ]; then
	echo
	echo "$minute_line"
fi
