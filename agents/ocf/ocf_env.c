/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faultmon OCF agents: the invocation (what the executor's environment says
 * about this action: resource, timeout, interval, check level) and the
 * resource's parameters (OCF_RESKEY_*, and those folded into `advanced`).
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faultmon/clock.h>
#include <faultmon/parse.h>
#include <faultmon/words.h>

#include "ocf_common.h"

#define RESKEY_PREFIX "OCF_RESKEY_"

/* A whole number of the environment (digits only), or dflt. */
static uint64_t
env_u64(const char *name, uint64_t dflt, bool *given)
{
    uint64_t v = 0;
    bool ok = (fm_parse_u64(getenv(name), 0, UINT64_MAX, FM_PARSE_DEFAULT, &v) == 0);

    if (given != NULL) {
        *given = ok;
    }
    return ok? v : dflt;
}

void
fm_ocf_init(struct fm_ocf *ocf, const char *agent, const char *action,
            uint64_t default_timeout_ms)
{
    memset(ocf, 0, sizeof(*ocf));
    ocf->start_us = fm_now_us();
    ocf->agent = agent;
    ocf->action = action;
    ocf->resource = getenv("OCF_RESOURCE_INSTANCE");
    ocf->timeout_ms = env_u64("OCF_RESKEY_CRM_meta_timeout", default_timeout_ms, &ocf->timeout_given);
    if (ocf->timeout_ms == 0) {
        ocf->timeout_ms = default_timeout_ms;
        ocf->timeout_given = false;
    }
    ocf->interval_ms = env_u64("OCF_RESKEY_CRM_meta_interval", 0, NULL);
    ocf->check_level = (int) env_u64("OCF_CHECK_LEVEL", 0, NULL);
    if (ocf->resource != NULL
        && fm_state_dir(ocf->resource, ocf->state_dir, sizeof(ocf->state_dir)) == 0) {
        ocf->have_state_dir = true;
    }
}

bool
fm_ocf_is_probe(const struct fm_ocf *ocf)
{
    return ocf->interval_ms == 0;
}

uint64_t
fm_ocf_left_ms(const struct fm_ocf *ocf)
{
    uint64_t spent_ms = (fm_now_us() - ocf->start_us) / 1000u;

    if (spent_ms + FM_OCF_MARGIN_MS >= ocf->timeout_ms) {
        return 0;
    }
    return ocf->timeout_ms - FM_OCF_MARGIN_MS - spent_ms;
}

const char *
fm_ocf_param(const char *name)
{
    char key[128];

    snprintf(key, sizeof(key), RESKEY_PREFIX "%s", name);
    return getenv(key);
}

const char *
fm_ocf_param_or(const char *name, const char *dflt)
{
    const char *value = fm_ocf_param(name);

    return (value != NULL && value[0] != '\0')? value : dflt;
}

int
fm_ocf_param_set(const char *name, const char *value)
{
    char key[128];

    snprintf(key, sizeof(key), RESKEY_PREFIX "%s", name);
    if (value == NULL) {
        return (unsetenv(key) == 0)? 0 : errno;
    }
    return (setenv(key, value, 1) == 0)? 0 : errno;
}

int
fm_ocf_param_bool(const char *name, bool dflt)
{
    const char *value = fm_ocf_param(name);
    bool v = false;

    if (value == NULL || value[0] == '\0') {
        return dflt;
    }
    return (fm_parse_bool(value, &v) == 0)? (int) v : -1;
}

/* Whether the meta-data's element \p tag (an opening "<parameter name=...")
 * says unique="1". */
static bool
param_unique(const char *tag)
{
    const char *end = strchr(tag, '>');
    const char *unique = strstr(tag, " unique=\"1\"");

    return end != NULL && unique != NULL && unique < end;
}

/* The names the words of `advanced` set so far (each once: at most the
 * agent's parameters, whatever the number of words). */
struct unfold_seen {
    char (*names)[64];
    size_t n;
};

static bool
unfold_seen(const struct unfold_seen *seen, const char *name)
{
    for (size_t i = 0; i < seen->n; i++) {
        if (strcmp(seen->names[i], name) == 0) {
            return true;
        }
    }
    return false;
}

static int
unfold_seen_add(struct unfold_seen *seen, const char *name)
{
    char (*grown)[64] = NULL;

    if (unfold_seen(seen, name)) {
        return 0;
    }
    grown = realloc(seen->names, (seen->n + 1) * sizeof(*grown));
    if (grown == NULL) {
        return ENOMEM;
    }
    seen->names = grown;
    snprintf(seen->names[seen->n++], sizeof(*grown), "%s", name);
    return 0;
}

/* One NAME=VALUE word of `advanced`: NAME must be another parameter of the
 * agent's meta-data, not one declared unique (the resource's identity, such
 * as configfile: Pacemaker and pcs check uniqueness only on a parameter set
 * by its name, so two resources could run one server), and not be given
 * twice with different values (an empty value by its name is unset; an
 * empty word is a value, so "rise= rise=3" is two).  A word refused is not
 * set, and \p why says why. */
static int
unfold_word(const char *metadata, const char *word, size_t index, struct unfold_seen *seen, char *why,
            size_t why_len)
{
    const char *eq = strchr(word, '=');
    const char *now = NULL;
    const char *at = NULL;
    char name[64];
    char tag[96];

    /* Only the name is ever echoed: a value may hold a URI's password. */
    if (eq == NULL || eq == word || (size_t) (eq - word) >= sizeof(name)) {
        snprintf(why, why_len, "advanced: word %zu is not NAME=VALUE (quote a value with blanks)", index);
        return PCMK_OCF_NOT_CONFIGURED;
    }
    snprintf(name, sizeof(name), "%.*s", (int) (eq - word), word);
    snprintf(tag, sizeof(tag), "<parameter name=\"%s\"", name);
    at = strstr(metadata, tag);
    if (strcmp(name, FM_OCF_FOLD_PARAM) == 0 || at == NULL) {
        snprintf(why, why_len, "advanced: '%s' is not a parameter of this agent", name);
        return PCMK_OCF_NOT_CONFIGURED;
    }
    if (param_unique(at)) {
        snprintf(why, why_len, "advanced: %s names the resource (unique): set it by its name", name);
        return PCMK_OCF_NOT_CONFIGURED;
    }
    now = fm_ocf_param(name);
    if (now != NULL && (now[0] != '\0' || unfold_seen(seen, name)) && strcmp(now, eq + 1) != 0) {
        snprintf(why, why_len, "%s is set twice with different values (as a parameter, or twice in advanced)",
                 name);
        return PCMK_OCF_NOT_CONFIGURED;
    }
    if (unfold_seen_add(seen, name) != 0 || fm_ocf_param_set(name, eq + 1) != 0) {
        snprintf(why, why_len, "advanced: cannot set %s: out of memory", name);
        return PCMK_OCF_UNKNOWN_ERROR;
    }
    return PCMK_OCF_OK;
}

int
fm_ocf_unfold(const char *metadata)
{
    const char *text = fm_ocf_param(FM_OCF_FOLD_PARAM);
    struct unfold_seen seen = { NULL, 0 };
    char **words = NULL;
    size_t n_words = 0;
    int rc = PCMK_OCF_OK;
    char why[256] = "";

    if (text == NULL || text[0] == '\0') {
        return PCMK_OCF_OK;
    }
    switch (fm_words_split(text, &words, &n_words, NULL)) {
        case 0:
            break;
        case EINVAL:
            return fm_ocf_fail(PCMK_OCF_NOT_CONFIGURED, "advanced: unbalanced quote");
        default:
            return fm_ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "advanced: out of memory");
    }
    /* Every word, past a refused one: the action refuses (validate-all,
     * start, monitor), but a stop goes on (agents/faultmon_ocf.c) and must
     * act on every well-formed word, not only those before a typo.  The
     * first refusal is the one said. */
    for (size_t i = 0; i < n_words; i++) {
        char word_why[256];
        int word_rc = unfold_word(metadata, words[i], i + 1, &seen, word_why, sizeof(word_why));

        if (word_rc != PCMK_OCF_OK && rc == PCMK_OCF_OK) {
            rc = word_rc;
            snprintf(why, sizeof(why), "%s", word_why);
        }
    }
    free(seen.names);
    fm_words_free(words, n_words);
    return (rc == PCMK_OCF_OK)? rc : fm_ocf_fail(rc, "%s", why);
}
