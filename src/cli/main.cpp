// fishschool-cli: the simulation without a window. `fishschool-cli --help` lists the commands.

#include "RunCommandLine.h"
#include "io/Hdf5Handles.h"
#include "io/OutputFiles.h"

int main(int argc, char** argv) {
    fishschool::hdf5::keepFilesToTheirOwners();
    fishschool::guardStandardStreams();
    return fishschool::cli::runCommandLine(argc, argv);
}
