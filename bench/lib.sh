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
