/*
 * units: parsing and formatting of the numbers people type and read:
 * durations (250ms, 30s, 2m, 1h, 1m30s), sizes (13k, 5MiB, 1GB), counts
 * (100, 10k) and percentages (1%, 0.5%). Pure functions, any thread.
 *
 * Parsers return 0 or a negative errno (-EINVAL for bad syntax or a missing
 * unit, -ERANGE for a value out of range) and, on failure, write one line to
 * why (always NUL-terminated, truncated to why_len) such as
 *   expected a duration such as 250ms, 30s, 2m or 1h, got "ten"
 * naming the bad value and what was expected, for the caller to prefix with
 * where it came from. The message is printable ASCII: the value is shown
 * through sanitize_display (ASCII only) and cut to 40 bytes. why may be NULL
 * when why_len is 0. On failure *out is left untouched; on success why is.
 *
 * Numbers are plain decimals: digits, optionally '.' and at least one more
 * digit ("1.5", not ".5" or "5."), at most 9 decimals after trailing zeros
 * are dropped. No sign, exponent, hex, "inf" or "nan"; a leading '-' is
 * reported as a negative value. Exactly one space may separate a number from
 * its unit ("10 s", "5 MiB", "50 %"), as SI writes them; two do not. Leading
 * and trailing blanks (space, tab) are ignored; nothing else is. Units are
 * case-sensitive (m is minutes, M is mega). Values are computed exactly, in
 * integers, whatever LC_NUMERIC says.
 */
#ifndef BRINK_CORE_UNITS_H
#define BRINK_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Durations: a number (decimals allowed) and a unit us, ms, s, m or h, or
 * several such parts with no space between them (1m30s, 1h0m0.5s), largest
 * unit first and each unit once. A unit is required except for a lone zero
 * ("0", "0.0"). Result in µs, rounded half up, at most UNITS_DURATION_MAX_US
 * (-ERANGE above); a non-zero value that rounds to 0 µs ("0.1us") is -ERANGE. */
#define UNITS_DURATION_MAX_US (100ULL * 24 * 3600 * 1000000) /* 100 days */
int units_parse_duration(const char *s, uint64_t *out_us, char *why, size_t why_len);

/* Sizes in bytes: a number (decimals allowed) with an optional unit:
 * B; k, K, kB, KB (1000); KiB, Ki (1024); M, MB / MiB, Mi; G, GB / GiB, Gi;
 * T, TB / TiB, Ti. No unit means bytes. Result must be a whole number of bytes
 * and fit in int64. */
int units_parse_size(const char *s, uint64_t *out_bytes, char *why, size_t why_len);

/* Counts: a non-negative integer with an optional k (1000) or M (1000000)
 * suffix, in [min, max] (-ERANGE outside, the message names both bounds).
 * Decimals are allowed when the result is whole: "1.5k" is 1500, "1.5" is not. */
int units_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *why,
                      size_t why_len);

/* Percentages: a number followed by %, 0 to 100; the result is the fraction 0..1.
 * A number without % is refused: "50" could mean 50% or 0.5. */
int units_parse_percent(const char *s, double *out_fraction, char *why, size_t why_len);

/* Rates: a number (decimals allowed), optionally followed by /s: "100",
 * "2.5/s"; 0 included. The result is per second, at most 1e15 (-ERANGE
 * above). Callers check their own range. */
int units_parse_rate(const char *s, double *out_per_s, char *why, size_t why_len);

/* Booleans: yes/no, true/false, on/off, 1/0 (any case); *out is 1 or 0. */
int units_parse_bool(const char *s, int *out, char *why, size_t why_len);

/*
 * Formatting for the console and reports; each writes a NUL-terminated string
 * of at most len bytes into buf and returns buf.
 * UNITS_FMT_MAX bytes always suffice; a shorter buffer gets a cut string.
 * Values are rounded half up; a value that rounds up to 1000 moves to the
 * next unit ("1.00s", never "1000ms"), and every output parses back with the
 * matching parser to within the rounding, up to 999TB and 999M.
 * units_format_duration: 3 significant digits with the unit chosen for the
 *   value: "850us", "1.23ms", "45.6ms", "2.00s", then from 59.95 s minutes and
 *   seconds "3m05s", from 59m59.5s hours and minutes "1h02m", "2400h00m".
 * units_format_size: "512B", "13.0kB", "5.00MB", "1.07GB" (powers of 1000),
 *   on to TB, PB and EB.
 * units_format_count: "999", "12.3k", "4.56M", on to G, T, P and E.
 */
#define UNITS_FMT_MAX 16
char *units_format_duration(uint64_t us, char *buf, size_t len);
char *units_format_size(uint64_t bytes, char *buf, size_t len);
char *units_format_count(uint64_t n, char *buf, size_t len);

#endif
