"""What the PyTorch test modules share: the Hopper skip, the dtypes, and the check of a
list of refused calls. (The seed and float32 fixtures live in conftest.py, which pytest
loads for every module.)"""

import pytest

torch = pytest.importorskip("torch")


def _why_no_hopper():
    if not torch.cuda.is_available():
        return "no CUDA device"
    cap = torch.cuda.get_device_capability()
    if cap != (9, 0):
        return f"compute capability {cap[0]}.{cap[1]}, not 9.0"
    return None


NO_HOPPER = _why_no_hopper()
needs_hopper = pytest.mark.skipif(NO_HOPPER is not None, reason=f"needs a Hopper GPU: {NO_HOPPER}")

DTYPES = [torch.bfloat16, torch.float16]


def assert_refusals(cases):
    """cases: (what, call, code, text). Each call raises the binding's argument error
    with the library's code and a message containing `text`, and launches nothing."""
    from warpspec import WarpspecArgumentError

    for what, call, code, text in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert isinstance(e.value, WarpspecArgumentError), what
        assert e.value.code == code, f"{what}: {e.value}"
        assert text in str(e.value), f"{what}: {e.value}"
    torch.cuda.synchronize()  # nothing was launched that could have failed
