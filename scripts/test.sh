#!/usr/bin/env bash
# THE test command (CI runs exactly `bash scripts/test.sh`).
#
#   scripts/test.sh                    # all stages
#   scripts/test.sh native s390x       # a subset
#
# Stages, each in build/<stage>:
#   native    Release, -Werror
#   sanitize  ASan + UBSan
#   aarch64   cross build, tests under qemu-aarch64 -cpu max
#   s390x     cross build, tests under qemu-s390x -cpu max
# Installs what is missing first (scripts/deps.sh). Keeps going after a failed
# stage; exits non-zero if any stage failed. The last line of output is always
#   <N> passed, <N> failed
# (ctest totals over all stages; a stage that fails to configure or build
# counts as one failure).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive
export HWCIPHER_JOBS=${HWCIPHER_JOBS:-2}
export CTEST_OUTPUT_ON_FAILURE=1
export CLICOLOR=0   # plain logs

all_stages=(native sanitize aarch64 s390x)
stages=("$@")
(( ${#stages[@]} )) || stages=("${all_stages[@]}")
for s in "${stages[@]}"; do
    [[ " ${all_stages[*]} " == *" $s "* ]] ||
        { echo "test.sh: unknown stage '$s' (${all_stages[*]})" >&2; exit 2; }
done

deps_args=(--native)
for s in "${stages[@]}"; do
    [[ "$s" == aarch64 || "$s" == s390x ]] && deps_args=()
done
if ! bash scripts/deps.sh "${deps_args[@]}"; then
    echo "test.sh: installing dependencies failed"
    echo "0 passed, 1 failed"
    exit 1
fi

total_pass=0
total_fail=0
summary=()
rc=0
mkdir -p build

for stage in "${stages[@]}"; do
    echo
    echo "=================== stage: $stage ==================="
    start=$SECONDS
    log=build/test-$stage.log
    pass=0 fail=0 status=ok
    if ! bash scripts/build.sh "$stage"; then
        status="build FAILED"
        fail=1
    else
        ctest --test-dir "build/$stage" -j"$HWCIPHER_JOBS" --output-on-failure \
              --timeout 900 2>&1 | tee "$log"
        ctest_rc=${PIPESTATUS[0]}
        # "100% tests passed, 0 tests failed out of 9"
        line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
        if [[ -n "$line" ]]; then
            fail=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<< "$line")
            total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<< "$line")
            pass=$(( total - fail ))
        elif grep -q "No tests were found" "$log"; then
            line="no tests"
        fi
        if (( ctest_rc != 0 )) && (( fail == 0 )); then
            fail=1      # ctest itself failed (e.g. test discovery)
            line="${line:-ctest failed (rc=$ctest_rc)}"
        fi
        (( fail == 0 )) || status="tests FAILED"
        echo "---- $stage: ${line:-no ctest summary}"
        sed -n '/The following tests FAILED:/,/^Errors while running CTest/p' "$log" | grep -v '^Errors'
    fi
    (( fail == 0 )) || rc=1
    total_pass=$(( total_pass + pass ))
    total_fail=$(( total_fail + fail ))
    summary+=("$(printf '%-9s %-13s %5d passed %4d failed %5ds' "$stage" "$status" "$pass" "$fail" $(( SECONDS - start )))")
done

echo
echo "=================== summary ==================="
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
exit $rc
