# SPDX-License-Identifier: BSD-2-Clause
#
# Cross-compile for 64-bit Arm Linux with Debian's cross toolchain
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, libc6-dev-arm64-cross), and
# run the results under qemu-user, so that `ctest` works unchanged:
#
#   cmake -S . -B build-aarch64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake \
#     -DCONQ_BUILD_BENCH=OFF
#   cmake --build build-aarch64 && ctest --test-dir build-aarch64
#
# (`make cross-aarch64` does exactly that.)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CONQ_CROSS_TRIPLE aarch64-linux-gnu)
set(CONQ_CROSS_SYSROOT /usr/${CONQ_CROSS_TRIPLE} CACHE PATH
  "Target root: libc and loader that qemu-aarch64 -L runs programs against")

set(CMAKE_C_COMPILER ${CONQ_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${CONQ_CROSS_TRIPLE}-g++)

# Libraries and headers from the target root only; programs from the host.
set(CMAKE_FIND_ROOT_PATH ${CONQ_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# add_test(NAME ... COMMAND <target>) and try_run() go through this.
find_program(CONQ_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(CONQ_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CONQ_QEMU_AARCH64} -L ${CONQ_CROSS_SYSROOT})
endif()
