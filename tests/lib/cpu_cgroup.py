"""A cgroup v1 `cpu` group that throttles what is put in it, removed on the way out: the straggler
tests of tests/mpi and tests/cluster share it."""
import contextlib
import os
import time
from pathlib import Path

CPU_CGROUP = Path("/sys/fs/cgroup/cpu")


def unavailable():
    """Why no throttling group can be made on this machine; "" when one can."""
    if not (CPU_CGROUP / "cpu.cfs_quota_us").is_file() or not os.access(CPU_CGROUP, os.W_OK):
        return f"{CPU_CGROUP}: no writable cgroup v1 cpu controller"
    return ""


@contextlib.contextmanager
def throttled_group(name, period_us, quota_us):
    """CPU_CGROUP/<name>-<pid> with `quota_us` of CPU in every `period_us`; removed afterwards
    (waiting up to 5 s for its processes to end), RuntimeError when it cannot be."""
    group = CPU_CGROUP / f"{name}-{os.getpid()}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text(str(period_us))
        (group / "cpu.cfs_quota_us").write_text(str(quota_us))
        yield group
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
        if group.exists():
            raise RuntimeError(f"{group} could not be removed (a process still in it)")
