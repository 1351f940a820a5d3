/*
 * ascii: character classes of the C locale, whatever the process locale is
 * (<ctype.h> follows setlocale, and its functions take an unsigned char or
 * EOF only). Every byte outside ASCII is in no class. Pure, any thread.
 */
#ifndef BRINK_CORE_ASCII_H
#define BRINK_CORE_ASCII_H

/* c is a char, an unsigned char or an int; negative values are in no class. */
static inline int ascii_is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static inline int ascii_is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int ascii_is_alnum(int c)
{
    return ascii_is_alpha(c) || ascii_is_digit(c);
}

/* A space or a tab: what separates words inside one line. */
static inline int ascii_is_blank(int c)
{
    return c == ' ' || c == '\t';
}

static inline char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The value of hex digit c (either case), or -1 when c is not one. */
static inline int ascii_hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = ascii_lower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

#endif
