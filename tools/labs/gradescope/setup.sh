#!/bin/sh
# Gradescope runs this once, as root, when it builds the autograder's image
# (docs/teaching.md, "Gradescope"): the Debian/Ubuntu packages ccos needs,
# then a build of the lab's tree that every submission's build starts from.
set -e
A=${CCOS_AUTOGRADER:-/autograder}
"$A/source/ccos/tools/setup"
make -C "$A/source/ccos" --no-print-directory all GRUB_TIMEOUT=0
