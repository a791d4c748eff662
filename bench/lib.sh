# Shared helpers of the bench scripts; source it after setting `runs` (and `work` for
# median_cpu and median_wall_cpu).

# median wall time in seconds of a command, run $runs times
median() {
  local t=()
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s.%N)
    t+=("$(echo "$e - $s" | bc -l)")
  done
  printf '%s\n' "${t[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.3f\n", a[int((NR+1)/2)]}'
}

# median CPU seconds (user + system) of a command: steadier than wall time on a shared machine
median_cpu() {
  local t=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$work/cpu" -f '%U %S' "$@" >/dev/null 2>&1
    t+=("$(awk '{print $1 + $2}' "$work/cpu")")
  done
  printf '%s\n' "${t[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.3f\n", a[int((NR+1)/2)]}'
}

# median wall and CPU seconds (user + system) of a command, both from the same $runs runs
# (GNU time): "WALL CPU"
median_wall_cpu() {
  local w=() c=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$work/cpu" -f '%e %U %S' "$@" >/dev/null 2>&1
    w+=("$(awk '{print $1}' "$work/cpu")")
    c+=("$(awk '{print $2 + $3}' "$work/cpu")")
  done
  local mw mc
  mw=$(printf '%s\n' "${w[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.2f\n", a[int((NR+1)/2)]}')
  mc=$(printf '%s\n' "${c[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.2f\n", a[int((NR+1)/2)]}')
  echo "$mw $mc"
}

# `n` copies of the viewer benchmark's 100 synthetic one-hour archives (array `src`) in `dir`,
# named host-NNNN.hlog, recorded at one instant as a fleet's runs started with --start-at:
# StartTime and BaseTime set to one instant, a second later per hundred (so that no two runs
# are the same run, which `nines compare` refuses in a set)
fleet_copies() {
  local dir=$1 n=$2 i t0
  mkdir -p "$dir"
  for i in $(seq 0 $((n - 1))); do
    t0=$((1764489600 + i / 100))
    sed -e "1,6s/^#\[StartTime: [0-9.]*/#[StartTime: $t0.000/" -e "1,6s/^#\[BaseTime: [0-9.]*/#[BaseTime: $t0.000/" \
      "${src[$((i % 100))]}" > "$dir/host-$(printf %04d "$i").hlog"
  done
}
