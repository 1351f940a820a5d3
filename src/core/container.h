/*
 * container_of: from a pointer to a member back to the struct holding it,
 * as libuv's handles embedded in our structs need (never a first-member
 * cast). Pure macro, any thread.
 */
#ifndef BRINK_CORE_CONTAINER_H
#define BRINK_CORE_CONTAINER_H

#include <stddef.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
