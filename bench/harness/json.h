/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * json.h - what conq-bench needs of JSON: writing strings and numbers the
 * way JMH's result JSON does (a non-finite number is written as the string
 * "NaN", "Infinity" or "-Infinity", as JMH writes scoreError "NaN"), and a
 * small strict parser (RFC 8259: no trailing commas, no leading zeros, no
 * control characters or invalid UTF-8 in strings, \u escapes with paired
 * surrogates, no duplicate keys, nothing after the value, depth <= 64) for
 * `conq-bench compare` and the harness tests. One limit: a string holding
 * U+0000 (valid JSON) is refused, as C strings cannot carry it.
 */
#ifndef CB_JSON_H
#define CB_JSON_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
	CB_JNULL,
	CB_JFALSE,
	CB_JTRUE,
	CB_JNUM,
	CB_JSTR,
	CB_JARR,
	CB_JOBJ
} cb_jtype;

typedef struct cb_json {
	cb_jtype type;
	double num;	     /* CB_JNUM */
	char *str;	     /* CB_JSTR: UTF-8, NUL-terminated (no NUL in it) */
	struct cb_json *kid; /* CB_JARR, CB_JOBJ: n values */
	char **key;	     /* CB_JOBJ: n keys */
	size_t n;
} cb_json;

/* Writers. */
void cb_json_str(FILE *f, const char *s);
void cb_json_num(FILE *f, double v);

/* Parse text[0..len); NULL on error with a message ("line 3 col 7:
 * trailing comma") in err. */
cb_json *cb_json_parse(const char *text, size_t len, char *err, size_t errlen);
/* Read and parse a whole file; NULL on error (err says why). */
cb_json *cb_json_parse_file(const char *path, char *err, size_t errlen);
void cb_json_free(cb_json *j);

/* Object member by key, NULL if absent (or j is not an object). */
const cb_json *cb_json_get(const cb_json *j, const char *key);
/* A number, or one of JMH's non-finite strings; NaN otherwise. */
double cb_json_number(const cb_json *j);

/* Unit tests (valid and invalid documents, round trips); failures. */
int cb_json_selftest(void);

#endif /* CB_JSON_H */
