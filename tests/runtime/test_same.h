/* test_same.h - two runs that must give the same numbers (a layout against another, memory of
 * one size against another's): bit for bit where the linear algebra is our own (the portable
 * backend), to a relative tolerance with LAPACK, whose OpenBLAS kernels may sum in another order
 * where an array lies at another alignment (its SSE3 kernels, chosen on a CPU it does not know:
 * 1 ulp of the slider-crank's held start, 2e-12 after 900 RK4 steps of a compact run against a
 * full one). A buffer carved too small, overwriting its neighbour, changes the numbers far more.
 * Include after <cmocka.h> and mcs/mcs_sim.h. */
#ifndef TEST_SAME_H
#define TEST_SAME_H

#include <math.h>
#include <stdio.h>

/* a and b (n entries) equal: bit for bit with the portable backend, else to rel max(1, |b|). */
static void assert_same(const mcs_real *a, const mcs_real *b, int n, double rel)
{
    int i;
    for (i = 0; i < n; ++i) {
#ifdef MCS_LINALG_PORTABLE
        (void)rel;
        assert_true(a[i] == b[i]);
#else
        const double scale = (fabs((double)b[i]) > 1.0) ? fabs((double)b[i]) : 1.0;
        if (!(fabs((double)a[i] - (double)b[i]) <= rel * scale)) {
            print_error("entry %d: %.17g, not %.17g\n", i, (double)a[i], (double)b[i]);
            fail();
        }
#endif
    }
}

#endif /* TEST_SAME_H */
