/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon: the one file format of the state directory, and its one reader
 * and one atomic writer (libfmutil, libc only).
 *
 * A file is text, one line each, every line ending in '\n':
 *
 *     HEADER              a fixed first line naming the format and its
 *                         version, such as "faultmon-state 1"
 *     key=value           any number; the key is what comes before the first
 *                         '=', the value the rest of the line
 *     end                 the trailer: a file without it was cut short
 *
 * The reader checks only this framing (the header, key=value lines, the
 * trailer last, no NUL byte, the final newline, a size limit) and hands each
 * key and value to a callback, which judges their meaning.  A file that
 * fails any check is no verdict: the caller treats it as absent or corrupt,
 * never as a decision.
 */
#ifndef FAULTMON_KVFILE_H
#define FAULTMON_KVFILE_H

#include <stddef.h>
#include <stdio.h>

/*! What a format is. */
struct fm_kvfile_format {
    const char *header;     /*!< its first line, without the '\n' */
    const char *name;       /*!< what it is, for "not a NAME" */
    size_t max_bytes;       /*!< a larger file is refused unread */
};

/*!
 * \brief Judge one key=value line.
 *
 * \param[in,out] key    the key, NUL-terminated (may be changed in place)
 * \param[in,out] value  the value, NUL-terminated (may be changed in place)
 * \param[in,out] data   the caller's
 * \return NULL to accept the line, or a short reason ("unknown key or bad
 *         value") that fm_kvfile_parse() reports with the line
 */
typedef const char *(*fm_kvfile_entry_fn)(char *key, char *value, void *data);

/*!
 * \brief Check the framing of a file's text and hand each entry to \p entry.
 *
 * Stops at the first fault.  The reasons, in \p err, in one line:
 * "empty or binary data", "truncated: no newline at the end",
 * "line N: not a NAME ('...')", "line N: not key=value ('...')",
 * "line N: data after 'end' ('...')", "line N: REASON ('...')" for what
 * \p entry refused, "line N: truncated: no 'end'"; the line is shown
 * escaped and cut to 63 bytes.
 *
 * \param[in]  text     the file's bytes (need not be NUL-terminated)
 * \param[in]  len      their number
 * \param[in]  format   the format (its header and name)
 * \param[in]  entry    called for each key=value line, in order
 * \param[in]  data     passed to \p entry
 * \param[out] err      why the text is refused (may be NULL)
 * \param[in]  err_len  size of \p err
 * \return 0, or EINVAL (out of memory too, so that no caller takes it for
 *         a verdict)
 */
int fm_kvfile_parse(const char *text, size_t len, const struct fm_kvfile_format *format,
                    fm_kvfile_entry_fn entry, void *data, char *err, size_t err_len);

/*!
 * \brief Read a whole file that may be a hostile one.
 *
 * The path must name a regular file (no symbolic link as the last part, no
 * FIFO or device: it is opened without following or blocking) of at most
 * \p max_bytes.
 *
 * \param[in]  path       the file
 * \param[in]  max_bytes  the largest size accepted
 * \param[out] text       its bytes, NUL-terminated; free() them
 * \param[out] len        their number
 * \param[out] err        why not, "cannot read PATH: ...", "PATH is not a
 *                        regular file of at most N bytes", "PATH: short
 *                        read" (may be NULL)
 * \param[in]  err_len    size of \p err
 * \return 0; ENOENT when there is no such file; ENOMEM; EINVAL otherwise
 */
int fm_kvfile_load(const char *path, size_t max_bytes, char **text, size_t *len,
                   char *err, size_t err_len);

/*!
 * \brief fm_kvfile_load() of a file already open (\p fd, which it closes):
 *        a reader that checked who wrote the file (fm_trust_open()) reads
 *        what it checked.  \p path names it in messages.
 */
int fm_kvfile_load_fd(int fd, const char *path, size_t max_bytes, char **text, size_t *len,
                      char *err, size_t err_len);

/*!
 * \brief fm_kvfile_load() then fm_kvfile_parse().
 * \return 0; ENOENT when there is no such file; ENOMEM; EINVAL otherwise,
 *         with \p err "PATH: why" for a file that does not parse
 */
int fm_kvfile_read(const char *path, const struct fm_kvfile_format *format,
                   fm_kvfile_entry_fn entry, void *data, char *err, size_t err_len);

/*!
 * \brief Write "key=text\n" with each control character of \p text as '?',
 *        so that a value never breaks the one-line framing.
 */
void fm_kvfile_put_text(FILE *out, const char *key, const char *text);

/*!
 * \brief Write DIR/NAME atomically: a temporary file DIR/.NAME.PID.tmp
 *        (mode 0600, never through a symbolic link) filled by \p write_fn,
 *        fsync, rename over NAME, fsync of DIR.  Readers see the old file
 *        or the new one, whole; a failed write leaves the old file and no
 *        temporary one.
 *
 * \param[in] dir       the directory
 * \param[in] name      the file's name in it
 * \param[in] write_fn  writes the whole content (for a kvfile: the header,
 *                      the lines, "end")
 * \param[in] data      passed to \p write_fn
 * \return 0 or an errno value
 */
int fm_kvfile_write(const char *dir, const char *name,
                    void (*write_fn)(FILE *out, const void *data), const void *data);

#endif
