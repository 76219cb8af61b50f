#pragma once

/// What the shared library libfishschool.so exports: the public API, each declaration marked
/// FISHSCHOOL_API. Everything else is compiled hidden (CMakeLists.txt: -fvisibility=hidden), so
/// that a program linking the library reaches no internal symbol and the library can change its
/// insides freely.
#define FISHSCHOOL_API __attribute__((visibility("default")))
