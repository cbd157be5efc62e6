#!/bin/sh
# Run the libFuzzer harness: first the shipped seed corpus once
# (regression), then a bounded fuzzing session (SECONDS) in a scratch
# corpus so the repository copy is never modified.
#   run_fuzz.sh FUZZER SEED_DIR WORK_DIR SECONDS
FUZZ=$1
SEEDS=$2
WORK=$3
SECS=${4:-20}
rm -rf "$WORK"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
cp "$SEEDS"/* "$WORK/corpus/" 2>/dev/null
if "$FUZZ" -runs=0 "$SEEDS" > "$WORK/seeds.log" 2>&1; then
	echo "PASS: fuzz_seed_corpus"
else
	echo "FAIL: fuzz_seed_corpus: see $WORK/seeds.log"
	exit 1
fi
if "$FUZZ" -max_total_time="$SECS" -max_len=4096 -rss_limit_mb=2048 \
	-artifact_prefix="$WORK/artifacts/" "$WORK/corpus" > "$WORK/fuzz.log" 2>&1; then
	runs=$(grep -o 'Done [0-9]* runs' "$WORK/fuzz.log" | tail -1)
	echo "PASS: fuzz_core ($runs in ${SECS}s)"
else
	echo "FAIL: fuzz_core: crash or invariant violation, see $WORK/fuzz.log and $WORK/artifacts"
	exit 1
fi
