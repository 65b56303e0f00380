/*
 * faultmon OCF agents: libc stand-ins for the two libcrypto functions of
 * src/target.c (see ocf_nocrypto.h).
 */
#include <config.h>

#include <string.h>

#include "ocf_common.h"

int
fm_ocf_nocrypto_encode_block(unsigned char *t, const unsigned char *f, int n)
{
    /* EVP_EncodeBlock's contract: 4 output bytes per 3 input bytes, NUL. */
    size_t out_len = ((size_t) n + 2) / 3 * 4 + 1;

    fm_ocf_base64(f, (size_t) n, (char *) t, out_len);
    return (int) (out_len - 1);
}

void
fm_ocf_nocrypto_cleanse(void *ptr, size_t len)
{
    explicit_bzero(ptr, len);
}
