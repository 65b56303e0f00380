/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon fuzzing: helpers shared by the libFuzzer harnesses (tests/fuzz).
 *
 * A harness takes its input apart with a cursor: a few leading bytes choose
 * options, the rest is the text under test.  A property that does not hold
 * aborts with a message, which libFuzzer reports as a crash and saves the
 * input.  Files a harness needs live in a private directory on tmpfs when
 * there is one, made once per process and removed at exit.
 */
#ifndef FAULTMON_FUZZ_COMMON_H
#define FAULTMON_FUZZ_COMMON_H

#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property failed: say which, and abort so that libFuzzer keeps the input. */
#define FM_FUZZ_CHECK(cond, ...) do {                                        \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__,       \
                    __LINE__, #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            abort();                                                        \
        }                                                                   \
    } while (0)

struct fm_fuzz_input {
    const uint8_t *data;
    size_t len;
    size_t pos;
};

static inline void
fm_fuzz_input_init(struct fm_fuzz_input *in, const uint8_t *data, size_t len)
{
    in->data = data;
    in->len = len;
    in->pos = 0;
}

/* One byte, or 0 when the input is used up. */
static inline uint8_t
fm_fuzz_byte(struct fm_fuzz_input *in)
{
    return (in->pos < in->len)? in->data[in->pos++] : 0;
}

static inline size_t
fm_fuzz_left(const struct fm_fuzz_input *in)
{
    return in->len - in->pos;
}

/*!
 * \brief The next line of the input (up to '\n' or the end), as a new
 *        NUL-terminated string (NUL bytes in it end it early, as C sees it).
 * \return the string (free it), or NULL when the input is used up
 */
static inline char *
fm_fuzz_line(struct fm_fuzz_input *in)
{
    const uint8_t *start = in->data + in->pos;
    const uint8_t *nl = NULL;
    size_t n = 0;
    char *out = NULL;

    if (in->pos >= in->len) {
        return NULL;
    }
    nl = memchr(start, '\n', in->len - in->pos);
    n = (nl != NULL)? (size_t) (nl - start) : in->len - in->pos;
    in->pos += n + ((nl != NULL)? 1 : 0);
    out = calloc(1, n + 1);
    if (out == NULL) {
        abort();
    }
    memcpy(out, start, n);
    return out;
}

/* The rest of the input as a NUL-terminated string. */
static inline char *
fm_fuzz_rest(struct fm_fuzz_input *in)
{
    size_t n = fm_fuzz_left(in);
    char *out = calloc(1, n + 1);

    if (out == NULL) {
        abort();
    }
    memcpy(out, in->data + in->pos, n);
    in->pos = in->len;
    return out;
}

static char fm_fuzz_dir_path[256];

static int
fm_fuzz_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void) sb;
    (void) flag;
    (void) ftw;
    remove(path);
    return 0;
}

/*! \brief Remove everything under \p dir (and \p dir itself when \p self). */
static inline void
fm_fuzz_rm_tree(const char *dir, bool self)
{
    nftw(dir, fm_fuzz_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (!self) {
        mkdir(dir, 0700);
    }
}

static void
fm_fuzz_dir_cleanup(void)
{
    if (fm_fuzz_dir_path[0] != '\0') {
        fm_fuzz_rm_tree(fm_fuzz_dir_path, true);
    }
}

/*!
 * \brief A private directory for this process, removed at exit: under
 *        $FM_FUZZ_TMPDIR (which `make fuzz-smoke` sets and removes, as a
 *        crash skips the removal), else on /dev/shm when it exists, so that
 *        the fsync of an atomic write costs nothing.
 */
static inline const char *
fm_fuzz_dir(void)
{
    const char *base = NULL;

    if (fm_fuzz_dir_path[0] != '\0') {
        return fm_fuzz_dir_path;
    }
    base = getenv("FM_FUZZ_TMPDIR");
    if (base == NULL || base[0] == '\0') {
        base = (access("/dev/shm", W_OK) == 0)? "/dev/shm" : getenv("TMPDIR");
    }
    if (base == NULL || base[0] == '\0') {
        base = "/tmp";
    }
    snprintf(fm_fuzz_dir_path, sizeof(fm_fuzz_dir_path), "%s/faultmon-fuzz.XXXXXX", base);
    if (mkdtemp(fm_fuzz_dir_path) == NULL) {
        perror("mkdtemp");
        abort();
    }
    atexit(fm_fuzz_dir_cleanup);
    return fm_fuzz_dir_path;
}

/*! \brief Write \p len bytes to DIR/NAME (replacing it). */
static inline void
fm_fuzz_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[512];
    FILE *out = NULL;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    out = fopen(path, "we");
    if (out == NULL || (len > 0 && fwrite(data, 1, len, out) != len) || fclose(out) != 0) {
        perror(path);
        abort();
    }
}

/* Every NUL-terminated message a parser hands back: one line, terminated
 * within its buffer. */
static inline void
fm_fuzz_check_message(const char *msg, size_t msg_len)
{
    FM_FUZZ_CHECK(memchr(msg, '\0', msg_len) != NULL, "message not terminated");
    FM_FUZZ_CHECK(strchr(msg, '\n') == NULL, "message of more than one line: %s", msg);
}

#endif
