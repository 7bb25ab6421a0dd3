# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /tmp/bt/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/tmp/bt/tests/warpspec_host_tests[1]_include.cmake")
include("/tmp/bt/tests/warpspec_gpu_tests[1]_include.cmake")
add_test([=[python.library]=] "/root/.pyenv/shims/python3" "/work/main/tests/python/run.py" "library")
set_tests_properties([=[python.library]=] PROPERTIES  ENVIRONMENT "WARPSPEC_LIBRARY=/tmp/bt/libwarpspec.so.0.1.0;PYTHONPATH=/work/main/python" LABELS "python" SKIP_RETURN_CODE "77" TIMEOUT "900" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;62;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[python.torch]=] "/root/.pyenv/shims/python3" "/work/main/tests/python/run.py" "torch")
set_tests_properties([=[python.torch]=] PROPERTIES  ENVIRONMENT "WARPSPEC_LIBRARY=/tmp/bt/libwarpspec.so.0.1.0;PYTHONPATH=/work/main/python" LABELS "python" SKIP_RETURN_CODE "77" TIMEOUT "900" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;62;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[ptxas_gate.clean]=] "/work/main/cmake/ptxas-gate" "/usr/local/cuda/bin/nvcc" "-gencode=arch=compute_90a,code=sm_90a" "-Xptxas=-v" "-c" "/work/main/tests/gate/clean.cu" "-o" "/tmp/bt/tests/gate_clean.o")
set_tests_properties([=[ptxas_gate.clean]=] PROPERTIES  LABELS "host" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;114;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[ptxas_gate.spills]=] "/work/main/cmake/ptxas-gate" "/usr/local/cuda/bin/nvcc" "-gencode=arch=compute_90a,code=sm_90a" "-Xptxas=-v" "-c" "/work/main/tests/gate/spills.cu" "-o" "/tmp/bt/tests/gate_spills.o")
set_tests_properties([=[ptxas_gate.spills]=] PROPERTIES  LABELS "host" TIMEOUT "300" WILL_FAIL "TRUE" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;114;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[package.pip_wheel]=] "/root/.pyenv/shims/python3" "/work/main/tests/package/pip_wheel.py" "/tmp/bt")
set_tests_properties([=[package.pip_wheel]=] PROPERTIES  LABELS "package" SKIP_RETURN_CODE "77" TIMEOUT "600" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;128;add_test;/work/main/tests/CMakeLists.txt;0;")
