# The article's experiment (ItemSync) and the batch crossover (BatchSweep), as data.
# Answers: how loop time depends on the .item() pattern (article table + interval 500,
# held out by the analysis), and from which batch the GPU beats the CPU.
# Each ItemSync row also gets a separate traced pass of TRACE_EPOCHS epochs after its timed
# runs (attribution counters on the row; the last 5 epochs as a Chrome trace in
# results/<machine>/traces/).
# Cost on a 2-core CPU: ItemSync 14 configs x 3 repetitions x ~3 s = ~3 min per device;
# BatchSweep ~2 min and the Ladder (incl. Python eager) ~1.5 min on the CPU (much more
# when other work shares the cores: LibTorch's 2 OpenMP threads then wait on each other).
# Sourced by scripts/reproduce.sh and scripts/gpu_check.sh; override any with the env.
ITEM_SYNC_FLAGS=(
  --benchmark_filter='^ItemSync/'
  --epochs="${EPOCHS:-20000}"
  --intervals=1,100,200,500,1000,2000,0
  --print100=0,1
  --benchmark_repetitions="${REPETITIONS:-3}"
  --benchmark_enable_random_interleaving=true
  --trace_epochs="${TRACE_EPOCHS:-2000}"
)
BATCH_SWEEP_FLAGS=(
  --benchmark_filter='^BatchSweep/'
  --sweep_epochs="${SWEEP_EPOCHS:-200}"
  --sweep_intervals=0,1
  --sweep_batches=120,1000,10000,30000,100000,1000000
  --benchmark_repetitions="${SWEEP_REPETITIONS:-3}"
  --benchmark_enable_random_interleaving=true
)
# Ladder rows with the FMA peak (Peak/cpu-fma-*) in the same interleaved run, so the CPU
# rungs' speed-ups and % of peak are ratios measured under the same load.
LADDER_FLAGS=(
  --benchmark_filter='^(Ladder|Peak)/'
  --ladder_epochs="${LADDER_EPOCHS:-20000}"
  --benchmark_repetitions="${REPETITIONS:-3}"
  --benchmark_enable_random_interleaving=true
)
# Every rung against the batch (RungSweep): epochs = RUNG_SWEEP_EPOCHS x 10^4 / rows within
# [RUNG_SWEEP_EPOCHS, 20000]. ~2-4 min on the 2-core CPU, depending on its load.
RUNG_SWEEP_FLAGS=(
  --benchmark_filter='^RungSweep/'
  --sweep_epochs="${RUNG_SWEEP_EPOCHS:-20}"
  --sweep_batches=120,1000,10000,100000,1000000
  --benchmark_repetitions="${SWEEP_REPETITIONS:-3}"
  --benchmark_enable_random_interleaving=true
)
# The torch.compile rung (experiments/torch_compile.py): Ladder rows (2000 epochs: a busy
# machine's OpenMP wake-ups make inductor's 2-thread kernels ms per epoch) and the same sweep.
TORCH_COMPILE_FLAGS=(--epochs "${TORCH_COMPILE_EPOCHS:-2000}" --repetitions "${REPETITIONS:-3}"
                     --batches 120,1000,10000,100000,1000000 --sweep-epochs "${RUNG_SWEEP_EPOCHS:-20}")
# The Python eager rung (experiments/python_eager.py), same problem, same JSON shape.
PYTHON_EAGER_FLAGS=(--epochs "${LADDER_EPOCHS:-20000}" --repetitions "${REPETITIONS:-3}")
# The primitives (launch, sync, copy, dispatch) the analysis predicts the loop from. They are
# short (0.2 s a repetition) and a prediction is only as good as their spread, so they get 10
# repetitions (REPORT.md gives each row's spread; ~10 s on a CPU, where only Dispatch runs).
# PRIMITIVE_REPETITIONS overrides; else an explicit REPETITIONS applies to them too, which is
# how scripts/gpu_check.sh (REPETITIONS=2) keeps them inside its budget.
PRIMITIVE_FLAGS=(
  --benchmark_filter='^(Dispatch|KernelLaunch|Sync|Memcpy)/'
  --benchmark_min_time=0.2
  --benchmark_repetitions="${PRIMITIVE_REPETITIONS:-${REPETITIONS:-10}}"
)
