# Shared helpers of the bench scripts; source it after setting `runs` (and `work` for
# median_cpu).

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
