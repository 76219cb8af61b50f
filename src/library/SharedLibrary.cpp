// libfishschool.so has no code of its own: CMake needs a source for a shared library, and its
// code is fishschool_library, linked whole (src/library/CMakeLists.txt).
