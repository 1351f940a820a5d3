/*
 * redact: the one place secrets are hidden before the screen, a recording, a
 * report or an error message sees them. Pure functions, any thread.
 * A hidden value is replaced by "<redacted len=N>".
 */
#ifndef BRINK_CORE_REDACT_H
#define BRINK_CORE_REDACT_H

#include <stddef.h>

/* True when a header of this name carries a secret: Authorization,
 * Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key, X-Auth-Token, and any
 * name containing token, secret, passw, apikey/api-key/api_key, session or
 * signature (any case). */
int redact_is_secret_header(const char *name);

/* Writes "Name: value" for a header line "Name: value" into out (cap bytes,
 * NUL-terminated), with the value redacted when the name is secret, unless
 * the value is only ${NAME} references after an optional scheme word
 * ("Bearer ${API_TOKEN}"): a reference says where the secret is, not what. The
 * value is what follows the colon and its blanks, without trailing blanks,
 * CR or LF (those are kept, so is the spacing). Lines without a colon are
 * copied. Output longer than cap - 1 is cut; a cut never shows secret bytes.
 * Returns the length written (< cap; 0 when cap is 0). */
size_t redact_header_line(const char *line, char *out, size_t cap);

/* Writes url into out with the password of user:pass@ and the values of
 * secret query keys (token, access_token, key, api_key, apikey, sig,
 * signature, password, passwd, secret, x-amz-signature, x-amz-credential,
 * x-amz-security-token; any case) redacted. Also redacted, because each is
 * a common way to leak: a user name with no password (often a token, as in
 * https://ghp_x@host), keys containing a secret word of the header rule
 * (client_secret, refresh_token, sessionid), keys written percent-encoded,
 * and the same key=value pairs in the fragment (#access_token=...). Pairs are
 * split on '&' and ';'; a secret value runs to the next '&'. A URL without
 * "scheme://" starts with its authority, as curl reads it. Cut and returned
 * as redact_header_line. */
size_t redact_url(const char *url, char *out, size_t cap);

/*
 * Writes text (a message, a line of output) into out with the secrets in it
 * redacted wherever they stand: every "scheme://..." token as redact_url
 * does (a token ends at a blank or a quote); "Name: value" headers whose name
 * is one redact_is_secret_header names outright (Authorization, Cookie, ...),
 * or, inside quotes, any secret name (with or without its colon), the value
 * running to the closing quote or the line end; and key=value pairs whose key is a secret query key
 * ("token=...", "--password=..."), the value running to a blank, a quote or
 * '&'. A value already redacted is kept, so redacting twice changes nothing.
 * Cut and returned as redact_header_line.
 */
size_t redact_text(const char *text, char *out, size_t cap);

#endif
