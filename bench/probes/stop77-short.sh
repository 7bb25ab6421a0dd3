export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
rm -rf build && tar xJf .dev/xz/final.tar.xz
timeout 60 build/tests/warpspec_host_tests 2>&1 | grep -E "Failure|FAILED|PASSED|SKIPPED \] [0-9]" -A3 | head -20
WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python:$PWD/tests/python timeout 60 python3 tests/python/fuzz_api.py --family varlen --seed 670129198 --cases 1 2>&1 | tail -6 | cut -c1-400
cd tests/python && WARPSPEC_LIBRARY=$PWD/../../build/libwarpspec.so PYTHONPATH=$PWD/../../python timeout 150 python3 -m pytest -q test_out.py test_attention.py 2>&1 | tail -4
