#pragma once

#include "app_model/AppOptions.h"

namespace fishschool::app {

/// Opens the window and runs until the user quits or the options say so. Returns the exit
/// status: 0, 2 for bad input or no usable display/GL, 1 for an internal failure.
int runApp(const AppOptions& options);

}  // namespace fishschool::app
