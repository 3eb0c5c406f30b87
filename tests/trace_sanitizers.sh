#!/usr/bin/env bash
# The trace library's unit tests under AddressSanitizer + UndefinedBehaviorSanitizer and
# under ThreadSanitizer (the importer parses on several threads: event_pipeline.h), and short
# libFuzzer runs from the real traces: the Kineto importer (fuzz_kineto_import, ISA-L's inflater
# where built in), the Nsight Systems reader (fuzz_nsys_import), the two gzip decoders against
# each other (fuzz_inflate) and the replay (fuzz_replay) (ctest: trace_sanitizers).
# Builds the trace-only project (no LibTorch) into $1 with clang when present (needed for
# libFuzzer), else g++ (tests only). Usage: tests/trace_sanitizers.sh BUILD_DIR [FUZZ_SECONDS]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: trace_sanitizers.sh BUILD_DIR [FUZZ_SECONDS]}"
fuzz_seconds="${2:-20}"
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
fuzz=OFF
if command -v clang++ >/dev/null; then
  export CC=clang CXX=clang++
  # libFuzzer's runtime comes with libclang-rt-dev; without it the tests still run, and the
  # fuzz run is reported NOT RUN.
  probe="$(mktemp -d)"
  printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' > "$probe/f.cpp"
  if clang++ -fsanitize=fuzzer,address,undefined "$probe/f.cpp" -o "$probe/f" 2>/dev/null; then
    fuzz=ON
  else
    echo "trace_sanitizers: libFuzzer runtime missing (Debian: libclang-rt-dev): fuzz run NOT RUN"
  fi
  rm -rf "$probe"
fi
cmake -S "$src" -B "$out" -G Ninja -DIRIS_TRACE_ONLY=ON -DIRIS_FUZZ=$fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$out" -- -j2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$out/trace_tests" --gtest_brief=1
if [ "$fuzz" = ON ] && [ "$fuzz_seconds" -gt 0 ]; then
  corpus="$out/fuzz-corpus"
  rm -rf "$corpus" && mkdir -p "$corpus"
  # Seeds: the small real traces (gzip and plain), so the fuzzer starts from real structure; one
  # with Python frames (python_function), which the call sites read.
  for f in "$src"/tests/data/traces/*.json.gz "$src"/tests/data/traces_stacks/*.json.gz; do
    [ "$(stat -c %s "$f")" -lt 100000 ] || continue
    cp "$f" "$corpus/"
    gzip -dc "$f" > "$corpus/$(basename "$f" .gz)"
  done
  "$out/fuzz_kineto_import" -max_total_time="$fuzz_seconds" -max_len=400000 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$corpus" 2>&1 | tail -15
  # The Nsight Systems reader: exports the fuzzer describes (an empty corpus starts it), and
  # a real export as a database image (a leading 0 byte selects that mode).
  nsys_corpus="$out/fuzz-corpus-nsys"
  rm -rf "$nsys_corpus" && mkdir -p "$nsys_corpus"
  { printf '\0'; gzip -dc "$src/tests/data/nsys/rtx3080-small.sqlite.gz"; } > "$nsys_corpus/rtx3080-small.image"
  "$out/fuzz_nsys_import" -max_total_time="$fuzz_seconds" -max_len=400000 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$nsys_corpus" 2>&1 | tail -15
  # The decoders: seeded with the small gzip traces; the last byte of an input picks the piece size.
  gz_corpus="$out/fuzz-corpus-gz"
  rm -rf "$gz_corpus" && mkdir -p "$gz_corpus"
  cp "$corpus"/*.json.gz "$gz_corpus/"
  "$out/fuzz_inflate" -max_total_time="$fuzz_seconds" -max_len=100000 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$gz_corpus" 2>&1 | tail -15
  # The replay, from the small JSON seeds and from raw bytes read as records (fuzz_replay.cpp);
  # inputs kept small, since each runs a dozen simulations.
  rcorpus="$out/fuzz-corpus-replay"
  rm -rf "$rcorpus" && mkdir -p "$rcorpus"
  find "$corpus" -maxdepth 1 -name '*.json' -size -60k -exec cp {} "$rcorpus/" \;
  for n in 64 512 4096; do head -c "$n" /dev/urandom > "$rcorpus/random-records-$n"; done
  "$out/fuzz_replay" -max_total_time="$fuzz_seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$rcorpus" 2>&1 | tail -15
fi
# ThreadSanitizer: a build of its own (it cannot be combined with ASan).
tsan="$out-tsan"
cmake -S "$src" -B "$tsan" -G Ninja -DIRIS_TRACE_ONLY=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build "$tsan" --target trace_tests -- -j2
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 "$tsan/trace_tests" --gtest_brief=1
echo "trace_sanitizers: passed"
