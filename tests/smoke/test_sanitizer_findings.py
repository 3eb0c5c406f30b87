"""scripts/sanitizer_findings.py: each compute-sanitizer finding is read against the kernel or
API call it names, so LibTorch's own API errors do not read as faults of our kernels."""

import os
import subprocess
import sys

REPO = os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = [sys.executable, "-m", "scripts.sanitizer_findings"]

API_ERROR_ONLY = """========= COMPUTE-SANITIZER
========= Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaFuncSetAttribute.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: at::native::something() [0x55] in libtorch_cuda.so
========= Invalid __shared__ read of size 4 bytes
=========     at void at::native::reduce_kernel<512, 1>(float *)+0x120
=========     by thread (3,0,0) in block (0,0,0)
========= ERROR SUMMARY: 2 errors
memcheck exit 3
"""
OURS = """========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at persistent_train_kernel(const float *, const long *, int, DeviceMlp, float, int, float *)+0x4bd0
=========     by thread (16,0,0) in block (0,0,0)
========= ERROR SUMMARY: 1 error
memcheck exit 3
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at fused_epoch_kernel(const float *, int)+0x1a0
=========     and Read access at fused_epoch_kernel(const float *, int)+0x220 [128 hazards]
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
racecheck exit 3
"""


def run(tmp_path, text):
    log = tmp_path / "compute_sanitizer.log"
    log.write_text(text)
    return subprocess.run(
        [*SCRIPT, str(log)], capture_output=True, text=True, cwd=REPO, check=False
    )


def test_findings_outside_our_kernels_are_named_and_do_not_fail(tmp_path):
    proc = run(tmp_path, API_ERROR_ONLY)
    assert proc.returncode == 0, proc.stdout
    assert "2 findings, 0 in our kernels" in proc.stdout
    assert "[other] memcheck     1 x CUDA API error -- API call cudaFuncSetAttribute" in proc.stdout
    assert "reduce_kernel" in proc.stdout


def test_findings_in_our_kernels_fail_and_name_the_tool_and_kernel(tmp_path):
    proc = run(tmp_path, OURS)
    assert proc.returncode == 1, proc.stdout
    assert (
        "[OURS ] memcheck     1 x Invalid __global__ write of size N bytes -- persistent_train_kernel"
        in proc.stdout
    )
    assert (
        "[OURS ] racecheck    1 x Error: Race reported between Write access -- fused_epoch_kernel"
        in proc.stdout
    )


def test_a_clean_log_and_a_missing_log(tmp_path):
    assert (
        "no findings"
        in run(tmp_path, "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n").stdout
    )
    proc = subprocess.run(
        [*SCRIPT, str(tmp_path / "absent.log")],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 2 and "cannot read" in proc.stderr
