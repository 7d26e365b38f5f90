/* board_report.c - the firmware example's report on a console, one item a line:
 *   model <name>
 *   status <code> <text>
 *   steps <accepted steps>
 *   events <singular configurations located>
 *   t <hex>
 *   x <i> <hex>          (one line per coordinate)
 *   c_norm <hex>         (|c(x, t)|_inf)
 *   end
 * preceded by an application's own `value <key> <hex>` and `count <key> <n>` lines, if any
 * (mcs_board_value, mcs_board_count).
 * Each real is printed as the hexadecimal bits of its mcs_real (8 digits for float, 16 for
 * double): exact, and printed without printf (no floating-point formatting in the image). */
#include <stdint.h>
#include <string.h>

#include "board_io.h"
#include "mcs_board.h"

static void write_line(const char *key, const char *value)
{
    board_write(key);
    board_write(" ");
    board_write(value);
    board_write("\n");
}

static void format_unsigned(unsigned long value, char *out)
{
    char digits[24];
    int k = 0;
    int i;
    do {
        digits[k++] = (char)('0' + (int)(value % 10UL));
        value /= 10UL;
    } while (value > 0UL);
    for (i = 0; i < k; ++i) {
        out[i] = digits[k - 1 - i];
    }
    out[k] = '\0';
}

static void format_real(mcs_real value, char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[sizeof(mcs_real)];
    uint64_t bits = 0;
    int digits = (int)(2 * sizeof(mcs_real));
    int i;
    (void)memcpy(bytes, &value, sizeof bytes);
    for (i = (int)sizeof bytes - 1; i >= 0; --i) { /* little-endian, as both targets are */
        bits = (bits << 8) | bytes[i];
    }
    for (i = 0; i < digits; ++i) {
        out[i] = hex[(bits >> (4 * (digits - 1 - i))) & 0xFU];
    }
    out[digits] = '\0';
}

void mcs_board_value(const char *key, mcs_real value)
{
    char real[20];
    format_real(value, real);
    board_write("value ");
    write_line(key, real);
}

void mcs_board_count(const char *key, unsigned long count)
{
    char number[24];
    format_unsigned(count, number);
    board_write("count ");
    write_line(key, number);
}

void mcs_board_report(mcs_status status, mcs_sim *sim)
{
    char number[24];
    char real[20];
    char pair[48];
    mcs_real c_norm = MCS_R(-1.0);
    int i;
    if (sim->model == NULL) { /* mcs_sim_init refused its arguments */
        format_unsigned((unsigned long)status, number);
        board_write("status ");
        write_line(number, mcs_status_str(status));
        board_write("end\n");
        board_exit(1);
    }
    write_line("model", sim->model->name);
    format_unsigned((unsigned long)status, number);
    board_write("status ");
    write_line(number, mcs_status_str(status));
    format_unsigned((unsigned long)sim->stats.steps, number);
    write_line("steps", number);
    format_unsigned((unsigned long)sim->stats.events, number);
    write_line("events", number);
    format_real(sim->cur.t, real);
    write_line("t", real);
    for (i = 0; i < sim->n; ++i) {
        format_unsigned((unsigned long)i, pair);
        format_real(sim->cur.x[i], real);
        (void)strcat(pair, " ");
        (void)strcat(pair, real);
        write_line("x", pair);
    }
    if (sim->ready && (mcs_sim_constraint_norm(sim, &c_norm) != MCS_OK)) {
        c_norm = MCS_R(-1.0);
    }
    format_real(c_norm, real);
    write_line("c_norm", real);
    board_write("end\n");
    board_exit((status == MCS_OK) ? 0 : 1);
}
