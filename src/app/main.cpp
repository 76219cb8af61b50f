// fishschool: the desktop app. `fishschool --help` lists the flags; docs/app.md the controls.

#include <cstdio>
#include <exception>
#include <new>

#include "App.h"
#include "app_model/AppOptions.h"
#include "io/ExitStatus.h"
#include "io/Hdf5Handles.h"
#include "io/OutputFiles.h"
#include "io/TextInput.h"

int main(int argc, char** argv) {
    using namespace fishschool;
    hdf5::keepFilesToTheirOwners();
    guardStandardStreams();
    const auto options = app::parseAppOptions(argc, argv);
    if (!options) {
        printError(options.error());
        return kExitBadInput;
    }
    if (!options->help.empty()) {
        std::fputs(options->help.c_str(), stdout);
        if (auto ok = flushStandardOutput(); !ok) {
            printError(ok.error());
            return kExitInternal;
        }
        return kExitSuccess;
    }
    try {
        return app::runApp(*options);
    } catch (const std::bad_alloc&) {
        printError("out of memory");
        return kExitInternal;
    } catch (const std::exception& e) {
        printError(std::string("internal: ") + e.what());
        return kExitInternal;
    }
}
