"""ctest's entry to the Python tests: `run.py library` (needs pytest) or `run.py torch`
(needs pytest and PyTorch; a Hopper GPU to run more than the error cases).

Exit 77 (ctest's SKIP_RETURN_CODE) when a requirement is missing or every test
skipped, so a CPU-only machine counts the entry as skipped, not passed.
"""

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITES = {"library": ["test_library.py"], "torch": ["test_gemm.py", "test_attention.py", "test_attention_masks.py", "test_hostile.py", "test_out.py",
                                                  "test_describe.py", "test_kvcache.py", "test_pack_gqa.py", "test_attention_fp8.py",
                                                  "test_scaled_mm.py", "test_fuzz_api.py"]}
SKIP = 77


def main() -> int:
    suite = sys.argv[1] if len(sys.argv) > 1 else ""
    if suite not in SUITES:
        print(f"usage: run.py {{{'|'.join(SUITES)}}}", file=sys.stderr)
        return 2
    needs = ["pytest"] + (["torch"] if suite == "torch" else [])
    missing = [m for m in needs if importlib.util.find_spec(m) is None]
    if missing:
        print(f"SKIP: {', '.join(missing)} not installed for {sys.executable}")
        return SKIP
    import pytest

    class Outcomes:
        def __init__(self):
            self.counts = {"passed": 0, "failed": 0, "skipped": 0}

        def pytest_runtest_logreport(self, report):
            if report.when == "call" or report.outcome != "passed":
                key = report.outcome if report.outcome in self.counts else "failed"
                self.counts[key] += 1

    outcomes = Outcomes()
    rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *[str(HERE / f) for f in SUITES[suite]]],
                     plugins=[outcomes])
    c = outcomes.counts
    print(f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped")
    if rc == 0 and c["passed"] == 0 and c["skipped"] > 0:
        return SKIP
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
