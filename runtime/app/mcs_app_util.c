/* mcs_app_util.c - fatal errors, numbers and parameters of the command-line programs
 * (mcs_app_util.h). */
#include "mcs_app_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf *die_target = NULL;
static char die_text[512];

void die_catch(jmp_buf *target)
{
    die_target = target;
}

const char *die_message(void)
{
    return die_text;
}

void die(const char *what, const char *detail)
{
    snprintf(die_text, sizeof die_text, "%s: %s%s%s", app_name, what, detail ? ": " : "",
             detail ? detail : "");
    if (die_target)
        longjmp(*die_target, 1);
    fprintf(stderr, "%s\n", die_text);
    exit(2);
}

double number(const char *text, const char *flag)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || value != value || value - value != 0)
        die("not a finite number for", flag);
    return value;
}

/* Whether the name (len characters) is one of the comma-separated list. */
static int listed(const char *list, const char *name, size_t len)
{
    while (*list) {
        const char *end = strchr(list, ',');
        const size_t k = end ? (size_t)(end - list) : strlen(list);
        if (k == len && !strncmp(list, name, len))
            return 1;
        list += k + (end ? 1 : 0);
    }
    return 0;
}

void set_param(const mcs_model *md, void *params, const char *val)
{
    const char *eq = strchr(val, '=');
    int k;
    if (!eq)
        die("--param needs NAME=VALUE, got", val);
#ifdef MCS_APP_FROZEN /* the model's <NAME>_FROZEN_PARAMS */
    if (listed(MCS_APP_FROZEN, val, (size_t)(eq - val)))
        die("--param: frozen at generation by the model file's freeze: list (change its value "
            "there, or take it off the list, and regenerate)",
            val);
#endif
    for (k = 0; k < md->np; ++k)
        if (strlen(md->param_names[k]) == (size_t)(eq - val) &&
            !strncmp(md->param_names[k], val, (size_t)(eq - val))) {
            *(mcs_real *)((char *)params + md->param_offsets[k]) = (mcs_real)number(eq + 1, val);
            return;
        }
    die("unknown parameter", val);
}

#if !defined(MCS_LINALG_PORTABLE) && defined(__GNUC__)
/* OpenBLAS's own controls, resolved at run time if it is the BLAS loaded (weak: NULL otherwise) */
extern void openblas_set_num_threads(int num_threads) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));
#endif

int app_pin_blas_threads(void)
{
#if !defined(MCS_LINALG_PORTABLE) && defined(__GNUC__)
    if (openblas_set_num_threads != NULL && openblas_get_num_threads != NULL) {
        openblas_set_num_threads(1);
        return openblas_get_num_threads();
    }
#endif
    return 0;
}
