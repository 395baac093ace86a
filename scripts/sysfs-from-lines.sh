#!/usr/bin/env bash
# Builds a fake sysfs tree (a fixture for --sysfs-root) from "path:value" lines, the format of
# the case files in shared/cases (`grep -r "" /sys/class/...` prints the same).
#
#   scripts/sysfs-from-lines.sh OUTDIR [FILE...]     (reads stdin without FILE)
#
# Line forms:
#   /sys/class/infiniband/mlx5_0/ports/1/state:4: ACTIVE     a file and its content
#   class/net/eth0/device -> ../../devices/pci0000:00/...    a RELATIVE symbolic link
#   # comment, "### section" and blank lines are skipped.
# A leading "/sys/" is dropped, so paths are relative to OUTDIR (the sysfs root).
# Where the path ends: at the first ':' after which the text up to the next '/' is not made of
# hex digits, '.' and ':' alone. So ':' inside PCI names (pci0000:00/0000:17:00.0/) stays in
# the path, while "rate:25 Gb/sec (1X EDR)" and "symbol_error:N/A (no PMA)" split at the ':'
# after the file name. (A value that itself starts like "0/1" cannot be expressed.)
# Links are created before files, and files are written through links, so the order of the
# lines does not matter. Existing files are overwritten; nothing else in OUTDIR is touched.
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -lt 1 ] && exit 2 || exit 0
fi
out=$1
shift
mkdir -p "$out"
root=$(cd "$out" && pwd -P)

die() { echo "sysfs-from-lines: $*" >&2; exit 1; }

# Sets SPLIT to the index of the ':' that ends the path, or -1 (no subshell: it runs per line).
split_index() {
  local pre="" rest=$1 seg
  SPLIT=-1
  while [[ $rest == *:* ]]; do
    pre+=${rest%%:*}
    rest=${rest#*:}
    if [[ $rest == */* ]]; then
      seg=${rest%%/*}
      if [[ -n $seg && $seg =~ ^[0-9a-fA-F.:]+$ ]]; then
        pre+=":"
        continue
      fi
    fi
    SPLIT=${#pre}
    return
  done
}

# Sets `path` to the logical path of $1 (leading "/sys/" dropped); refuses escapes.
clean_path() {
  path=${1#/sys/}
  [ "$path" = "/sys" ] && path=""
  [[ $path == /* ]] && die "line $n: absolute path outside /sys: $path"
  [[ /$path/ == */../* ]] && die "line $n: '..' in a path: $path"
  return 0
}

# Resolves DIR (relative to the root) through existing links, creates it, checks it stays
# inside; sets DIR_PATH. Cached per directory (realpath/mkdir are processes).
declare -A made=()
make_dir() {
  if [ -n "${made[$1]+x}" ]; then DIR_PATH=${made[$1]}; return; fi
  local d
  d=$(realpath -m "$root/$1")
  [[ $d == "$root" || $d == "$root"/* ]] || die "line $n: $1 resolves outside the tree ($d)"
  mkdir -p "$d"
  made[$1]=$d
  DIR_PATH=$d
}
# make_dir for the directory that holds `path`.
make_parent() { if [[ $path == */* ]]; then make_dir "${path%/*}"; else make_dir "."; fi; }

link_n=() link_path=() link_target=() file_n=() file_path=() file_value=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
  n=$((n + 1))
  line=${line%$'\r'}
  [[ -z ${line//[[:space:]]/} || $line == \#* ]] && continue
  if [[ $line =~ ^([^[:space:]]+)\ -\>\ ([^[:space:]]+)$ ]]; then
    lhs=${BASH_REMATCH[1]} rhs=${BASH_REMATCH[2]}
    split_index "$lhs"
    if [ "$SPLIT" = -1 ]; then
      link_n+=("$n") link_path+=("$lhs") link_target+=("$rhs")
      continue
    fi
  fi
  split_index "$line"
  i=$SPLIT
  [ "$i" -ge 0 ] || die "line $n: no 'path:value' or 'path -> target': $line"
  file_n+=("$n") file_path+=("${line:0:i}") file_value+=("${line:i+1}")
done < <(if [ $# -gt 0 ]; then cat -- "$@"; else cat; fi)

for ((k = 0; k < ${#link_n[@]}; k++)); do
  n=${link_n[k]} target=${link_target[k]}
  clean_path "${link_path[k]}"
  [[ $target == /* ]] && die "line $n: link target must be relative (fixtures resolve inside the root): $target"
  made=()  # a new link can change where later paths resolve
  make_parent
  ln -sfn "$target" "$DIR_PATH/${path##*/}"
done
for ((k = 0; k < ${#file_n[@]}; k++)); do
  n=${file_n[k]} value=${file_value[k]}
  clean_path "${file_path[k]}"
  [ -n "$path" ] || die "line $n: empty path"
  make_parent
  printf '%s\n' "$value" >"$DIR_PATH/${path##*/}"
done
echo "sysfs-from-lines: ${#file_n[@]} files, ${#link_n[@]} links under $out"
