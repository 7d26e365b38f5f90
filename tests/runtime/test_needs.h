/* test_needs.h - C tests in a runtime built without some of its parts (mcs_config.h's
 * MCS_WITH_*; scripts/config-matrix runs every C test in every combination): a case that needs a
 * part the build left out is skipped, not failed. The parts are the runtime's own answer
 * (mcs_runtime_parts, which test_configs.c checks against the switches), so a test is compiled
 * once for all combinations. config-matrix counts the skipped cases, and a case skipped in the
 * full build fails it. */
#ifndef TEST_NEEDS_H
#define TEST_NEEDS_H

#include "mcs/mcs_sim.h"

/* MCS_PART_* bits */
#define NEEDS(parts) \
    do { \
        if ((mcs_runtime_parts() & (parts)) != (parts)) { \
            skip(); \
        } \
    } while (0)

#endif /* TEST_NEEDS_H */
