/* mcs_simulate_inputs.c - the input schedule of the command-line simulator (--inputs FILE.csv):
 * read as the run goes (a row at a time: any length of schedule in fixed memory), checked
 * whole before the run starts so that a bad row is refused before any output. */
#include "mcs_simulate_inputs.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_app_util.h"

/* The file, the line and the problem, after closing the file (die may jump back in-process). */
static void fail(app_inputs *in, const char *problem)
{
    char where[800];
    snprintf(where, sizeof where, "%.300s, line %ld: %.400s", in->path, in->line, problem);
    inputs_close(in);
    die("--inputs", where);
}

/* The next non-empty line into buf, without its end of line; 0 at the end of the file. */
static int read_line(app_inputs *in, char *buf)
{
    for (;;) {
        size_t len;
        if (!fgets(buf, APP_INPUT_LINE, in->file))
            return 0;
        in->line++;
        len = strlen(buf);
        if (len == APP_INPUT_LINE - 1 && buf[len - 1] != '\n' && !feof(in->file))
            fail(in, "line too long");
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
            buf[--len] = '\0';
        if (len > 0)
            return 1;
    }
}

/* The header: t first, then every input of the model once, in any order. */
static void read_header(app_inputs *in, const mcs_model *md)
{
    char buf[APP_INPUT_LINE];
    char *field, *rest;
    int k, col = 0, seen_t = 0;
    for (k = 0; k < md->nu; ++k)
        in->column[k] = -1;
    if (!read_line(in, buf))
        fail(in, "the file is empty (a header t,<input>,... is needed)");
    for (field = buf; field; field = rest, ++col) {
        rest = strchr(field, ',');
        if (rest)
            *rest++ = '\0';
        while (*field == ' ')
            ++field;
        if (!strcmp(field, "t") && col == 0) {
            seen_t = 1;
            continue;
        }
        for (k = 0; k < md->nu && strcmp(field, md->input_names[k]) != 0; ++k) {
        }
        if (k == md->nu || col == 0) {
            char problem[400];
            snprintf(problem, sizeof problem,
                     col == 0 ? "the header's first column must be t, not '%.100s'"
                              : "'%.100s' is not an input of the model",
                     field);
            fail(in, problem);
        }
        if (in->column[k] >= 0)
            fail(in, "an input is named twice in the header");
        in->column[k] = col;
    }
    if (!seen_t)
        fail(in, "the header's first column must be t");
    for (k = 0; k < md->nu; ++k) {
        if (in->column[k] < 0) {
            char problem[400];
            snprintf(problem, sizeof problem, "the header lacks input '%.100s'",
                     md->input_names[k]);
            fail(in, problem);
        }
    }
    in->ncolumns = col;
}

/* The next row into next_t, next_u; 0 at the end of the file. */
static int read_row(app_inputs *in)
{
    char buf[APP_INPUT_LINE];
    double values[MCS_SIM_MAX(MCS_MAX_INPUTS, 1) + 1];
    char *p = buf;
    int col, k;
    if (!read_line(in, buf))
        return 0;
    for (col = 0; col < in->ncolumns; ++col) {
        char *end;
        const double x = strtod(p, &end);
        if (end == p || x != x || x - x != 0)
            fail(in, "not a finite number");
        while (*end == ' ')
            ++end;
        if (col + 1 < in->ncolumns ? *end != ',' : *end != '\0')
            fail(in, col + 1 < in->ncolumns ? "too few columns" : "too many columns");
        if (col <= MCS_MAX_INPUTS)
            values[col] = x;
        p = end + 1;
    }
    if (in->rows > 0 && !(values[0] > (double)in->last_t))
        fail(in, "the times must increase from row to row");
    in->rows++;
    in->next_t = (mcs_real)values[0];
    for (k = 0; k < in->nu; ++k)
        in->next_u[k] = (mcs_real)values[in->column[k]];
    in->last_t = in->next_t;
    in->has_next = 1;
    return 1;
}

void inputs_open(app_inputs *in, const char *path, const mcs_model *md)
{
    in->path = path;
    in->file = NULL;
    in->nu = md->nu;
    in->has_next = 0;
    in->line = 0;
    in->rows = 0;
    in->last_t = 0;
    if (!path)
        return;
    if (md->nu == 0)
        die("--inputs: the model has no inputs (a mechanism file's inputs: declares them)", path);
    in->file = fopen(path, "r");
    if (!in->file)
        die("--inputs: cannot read", path);
    read_header(in, md);
    while (read_row(in)) { /* the whole schedule, before the run writes anything */
    }
    rewind(in->file);
    in->line = 0;
    in->rows = 0;
    in->has_next = 0;
    read_header(in, md);
    if (!read_row(in))
        inputs_close(in); /* a header alone: u stays 0 */
}

mcs_real inputs_next_time(const app_inputs *in)
{
    return in->has_next ? in->next_t : (mcs_real)FLT_MAX;
}

mcs_status inputs_apply(app_inputs *in, mcs_sim *sim, mcs_real t)
{
    mcs_real u[MCS_SIM_MAX(MCS_MAX_INPUTS, 1)];
    int k, any = 0;
    while (in->has_next && in->next_t <= t) {
        for (k = 0; k < in->nu; ++k)
            u[k] = in->next_u[k];
        any = 1;
        in->has_next = 0;
        if (in->file && !read_row(in))
            inputs_close(in);
    }
    return any ? mcs_sim_set_inputs(sim, u) : MCS_OK;
}

void inputs_close(app_inputs *in)
{
    if (in->file) {
        fclose(in->file);
        in->file = NULL;
    }
}
