/* replay.c - runs the fuzz harness on saved inputs without libFuzzer (gcc, with ASan/UBSan in
 * `make test`): each argument is an input file or a directory of them. Exit status 0 when every
 * input ran to its end; a sanitizer report or an abort in the harness fails the run. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t buffer[1 << 20];

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    size_t n;
    if (!f) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    n = fread(buffer, 1, sizeof buffer, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buffer, n);
    return 0;
}

int main(int argc, char **argv)
{
    int i, failed = 0, count = 0;
    for (i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file %s\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *dir = opendir(argv[i]);
            struct dirent *e;
            char path[4096];
            while (dir && (e = readdir(dir)) != NULL) {
                if (e->d_name[0] == '.')
                    continue;
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                failed |= run_file(path);
                count++;
            }
            if (dir)
                closedir(dir);
        } else {
            failed |= run_file(argv[i]);
            count++;
        }
    }
    printf("replay: %d inputs\n", count);
    return failed;
}
