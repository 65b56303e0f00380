/*
 * faultmon OCF agents: compile src/target.c without libcrypto.
 *
 * target.c uses two libcrypto functions (EVP_EncodeBlock for the basic
 * authentication header of a URI with credentials, OPENSSL_cleanse to wipe
 * them).  Loading libcrypto costs a process about 2.5 M instructions, twice
 * the budget of a whole monitor, so the agent program, which never sends a
 * request itself, gets libc equivalents instead.  This header is forced
 * into the agent's compilation (-include) before target.c's own includes,
 * so the names in <openssl/evp.h> and in target.c both become these.
 */
#ifndef FAULTMON_OCF_NOCRYPTO_H
#define FAULTMON_OCF_NOCRYPTO_H

#include <stddef.h>

#define EVP_EncodeBlock fm_ocf_nocrypto_encode_block
#define OPENSSL_cleanse fm_ocf_nocrypto_cleanse

int fm_ocf_nocrypto_encode_block(unsigned char *t, const unsigned char *f, int n);
void fm_ocf_nocrypto_cleanse(void *ptr, size_t len);

#endif
