// fishschool-cli: the simulation without a window. `fishschool-cli --help` lists the commands.

#include "RunCommandLine.h"

int main(int argc, char** argv) {
    return fishschool::cli::runCommandLine(argc, argv);
}
