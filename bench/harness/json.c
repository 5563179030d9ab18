/* SPDX-License-Identifier: BSD-2-Clause */
/* json.c - JSON writing helpers and a strict recursive-descent parser. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats.h"

void cb_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void cb_json_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("\"NaN\"", f);
	else if (isinf(v))
		fputs(v > 0 ? "\"Infinity\"" : "\"-Infinity\"", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.1f", v);
	else
		fprintf(f, "%.17g", v);
}

/* ---- parser -------------------------------------------------------------- */

typedef struct jp {
	const char *s, *end;
	const char *start;
	char *err;
	size_t errlen;
	int failed;
	int depth;
} jp;

static void jp_fail(jp *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void jp_fail(jp *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	size_t line = 1, col = 1;
	for (const char *c = p->start; c < p->s && c < p->end; c++) {
		if (*c == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (p->err != NULL && p->errlen > 0)
		snprintf(p->err, p->errlen, "line %zu col %zu: %s", line, col,
			 msg);
}

static void jp_ws(jp *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' ||
				 *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static int jp_lit(jp *p, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(p->end - p->s) >= n && memcmp(p->s, lit, n) == 0) {
		p->s += n;
		return 1;
	}
	return 0;
}

static void jp_value(jp *p, cb_json *v);

static int hex4(jp *p, unsigned *out)
{
	if (p->end - p->s < 4) {
		jp_fail(p, "short \\u escape");
		return -1;
	}
	unsigned v = 0;
	for (int k = 0; k < 4; k++) {
		char c = p->s[k];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else {
			jp_fail(p, "bad hex digit in \\u escape");
			return -1;
		}
	}
	p->s += 4;
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* One UTF-8 sequence at p->s, validated (no overlongs, no surrogates, <=
 * U+10FFFF); its length, or 0. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if ((size_t)(end - s) < n)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

static char *jp_string(jp *p)
{
	/* At the opening quote. The decoded string is never longer. */
	p->s++;
	const char *q = p->s;
	while (q < p->end && *q != '"') {
		if (*q == '\\')
			q++;
		q++;
	}
	char *out = (char *)malloc((size_t)(q - p->s) + 1);
	if (out == NULL) {
		jp_fail(p, "out of memory");
		return NULL;
	}
	size_t n = 0;
	for (;;) {
		if (p->s >= p->end) {
			jp_fail(p, "unterminated string");
			break;
		}
		unsigned char c = (unsigned char)*p->s;
		if (c == '"') {
			p->s++;
			out[n] = '\0';
			return out;
		}
		if (c < 0x20) {
			jp_fail(p, "control character in a string");
			break;
		}
		if (c != '\\') {
			size_t len = utf8_len((const unsigned char *)p->s,
					      (const unsigned char *)p->end);
			if (len == 0) {
				jp_fail(p, "invalid UTF-8 in a string");
				break;
			}
			memcpy(out + n, p->s, len);
			n += len;
			p->s += len;
			continue;
		}
		p->s++;
		if (p->s >= p->end) {
			jp_fail(p, "unterminated escape");
			break;
		}
		char e = *p->s++;
		switch (e) {
		case '"':
		case '\\':
		case '/':
			out[n++] = e;
			break;
		case 'b':
			out[n++] = '\b';
			break;
		case 'f':
			out[n++] = '\f';
			break;
		case 'n':
			out[n++] = '\n';
			break;
		case 'r':
			out[n++] = '\r';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case 'u': {
			unsigned cp;
			if (hex4(p, &cp) != 0)
				goto bad;
			if (cp >= 0xDC00 && cp <= 0xDFFF) {
				jp_fail(p, "lone low surrogate");
				goto bad;
			}
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				unsigned lo;
				if (!jp_lit(p, "\\u") || hex4(p, &lo) != 0 ||
				    lo < 0xDC00 || lo > 0xDFFF) {
					jp_fail(p, "unpaired high surrogate");
					goto bad;
				}
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				     (lo - 0xDC00);
			}
			if (cp == 0) {
				jp_fail(p, "\\u0000 in a string");
				goto bad;
			}
			n += put_utf8(out + n, cp);
			break;
		}
		default:
			jp_fail(p, "bad escape '\\%c'", e);
			goto bad;
		}
	}
bad:
	free(out);
	return NULL;
}

static void jp_number(jp *p, cb_json *v)
{
	const char *b = p->s;
	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s >= p->end) {
		jp_fail(p, "bad number");
		return;
	}
	if (*p->s == '0') {
		p->s++;
		if (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
			jp_fail(p, "leading zero in a number");
			return;
		}
	} else if (*p->s >= '1' && *p->s <= '9') {
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	} else {
		jp_fail(p, "bad number");
		return;
	}
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		if (p->s >= p->end || *p->s < '0' || *p->s > '9') {
			jp_fail(p, "digits expected after '.'");
			return;
		}
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (p->s >= p->end || *p->s < '0' || *p->s > '9') {
			jp_fail(p, "digits expected in the exponent");
			return;
		}
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	char buf[64];
	size_t len = (size_t)(p->s - b);
	if (len >= sizeof buf) {
		/* Long but valid: strtod on a heap copy. */
		char *h = (char *)malloc(len + 1);
		if (h == NULL) {
			jp_fail(p, "out of memory");
			return;
		}
		memcpy(h, b, len);
		h[len] = '\0';
		v->num = strtod(h, NULL);
		free(h);
	} else {
		memcpy(buf, b, len);
		buf[len] = '\0';
		v->num = strtod(buf, NULL);
	}
	v->type = CB_JNUM;
}

static int jp_push(jp *p, cb_json *v, size_t *cap)
{
	if (v->n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 4;
	cb_json *k = (cb_json *)realloc(v->kid, c * sizeof *k);
	if (k == NULL) {
		jp_fail(p, "out of memory");
		return -1;
	}
	v->kid = k;
	if (v->type == CB_JOBJ) {
		char **keys = (char **)realloc(v->key, c * sizeof *keys);
		if (keys == NULL) {
			jp_fail(p, "out of memory");
			return -1;
		}
		v->key = keys;
	}
	*cap = c;
	return 0;
}

static void jp_value(jp *p, cb_json *v)
{
	memset(v, 0, sizeof *v);
	jp_ws(p);
	if (p->s >= p->end) {
		jp_fail(p, "value expected");
		return;
	}
	char c = *p->s;
	if (c == '{' || c == '[') {
		if (++p->depth > 64) {
			jp_fail(p, "nested deeper than 64");
			return;
		}
		int obj = c == '{';
		v->type = obj ? CB_JOBJ : CB_JARR;
		p->s++;
		size_t cap = 0;
		jp_ws(p);
		if (p->s < p->end && *p->s == (obj ? '}' : ']')) {
			p->s++;
			p->depth--;
			return;
		}
		for (;;) {
			if (jp_push(p, v, &cap) != 0)
				return;
			if (obj) {
				jp_ws(p);
				if (p->s >= p->end || *p->s != '"') {
					jp_fail(p, "object key expected");
					return;
				}
				char *key = jp_string(p);
				if (key == NULL)
					return;
				for (size_t k = 0; k < v->n; k++)
					if (strcmp(v->key[k], key) == 0) {
						jp_fail(p,
							"duplicate key \"%s\"",
							key);
						free(key);
						return;
					}
				jp_ws(p);
				if (p->s >= p->end || *p->s != ':') {
					free(key);
					jp_fail(p, "':' expected");
					return;
				}
				p->s++;
				v->key[v->n] = key;
			}
			jp_value(p, &v->kid[v->n]);
			v->n++; /* even on failure: cb_json_free frees it */
			if (p->failed)
				return;
			jp_ws(p);
			if (p->s < p->end && *p->s == ',') {
				p->s++;
				jp_ws(p);
				if (p->s < p->end &&
				    (*p->s == ']' || *p->s == '}')) {
					jp_fail(p, "trailing comma");
					return;
				}
				continue;
			}
			if (p->s < p->end && *p->s == (obj ? '}' : ']')) {
				p->s++;
				p->depth--;
				return;
			}
			jp_fail(p, "',' or '%c' expected", obj ? '}' : ']');
			return;
		}
	}
	if (c == '"') {
		v->str = jp_string(p);
		if (v->str != NULL)
			v->type = CB_JSTR;
		return;
	}
	if (jp_lit(p, "true")) {
		v->type = CB_JTRUE;
		return;
	}
	if (jp_lit(p, "false")) {
		v->type = CB_JFALSE;
		return;
	}
	if (jp_lit(p, "null")) {
		v->type = CB_JNULL;
		return;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		jp_number(p, v);
		return;
	}
	jp_fail(p, "unexpected character '%c'", c);
}

static void free_kids(cb_json *j)
{
	for (size_t k = 0; k < j->n; k++) {
		free_kids(&j->kid[k]);
		if (j->type == CB_JOBJ)
			free(j->key[k]);
	}
	free(j->kid);
	free(j->key);
	free(j->str);
}

void cb_json_free(cb_json *j)
{
	if (j == NULL)
		return;
	free_kids(j);
	free(j);
}

cb_json *cb_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	jp p = {text, text + len, text, err, errlen, 0, 0};
	cb_json *v = (cb_json *)calloc(1, sizeof *v);
	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	jp_value(&p, v);
	if (!p.failed) {
		jp_ws(&p);
		if (p.s != p.end)
			jp_fail(&p, "garbage after the value");
	}
	if (p.failed) {
		cb_json_free(v);
		return NULL;
	}
	return v;
}

cb_json *cb_json_parse_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = (char *)malloc(cap);
	while (buf != NULL) {
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		cap *= 2;
		char *nb = (char *)realloc(buf, cap);
		if (nb == NULL) {
			free(buf);
			buf = NULL;
		}
		buf = nb;
	}
	int bad = ferror(f);
	fclose(f);
	if (buf == NULL || bad) {
		free(buf);
		snprintf(err, errlen, "%s: cannot read", path);
		return NULL;
	}
	cb_json *j = cb_json_parse(buf, n, err, errlen);
	free(buf);
	return j;
}

const cb_json *cb_json_get(const cb_json *j, const char *key)
{
	if (j == NULL || j->type != CB_JOBJ)
		return NULL;
	for (size_t k = 0; k < j->n; k++)
		if (strcmp(j->key[k], key) == 0)
			return &j->kid[k];
	return NULL;
}

double cb_json_number(const cb_json *j)
{
	if (j == NULL)
		return NAN;
	if (j->type == CB_JNUM)
		return j->num;
	if (j->type == CB_JSTR) {
		if (strcmp(j->str, "Infinity") == 0)
			return INFINITY;
		if (strcmp(j->str, "-Infinity") == 0)
			return -INFINITY;
	}
	return NAN;
}

/* ---- self-test ----------------------------------------------------------- */

int cb_json_selftest(void)
{
	int fails = 0;
	static const char *const good[] = {
	    "{}",
	    "[]",
	    "0",
	    "-0",
	    "1.5e-3",
	    "\"a\\u00e9\\ud83d\\ude00\"",
	    "{\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":false}",
	    " [ 1 , \"x\" ] \n",
	    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
	    "\"\xc3\xa9\xe2\x82\xac\"",
	    "1E+2",
	    "[[[[]]]]"};
	static const char *const bad[] = {"",
					  "[1,]",
					  "{\"a\":1,}",
					  "01",
					  "1.",
					  ".5",
					  "+1",
					  "[1 2]",
					  "{\"a\" 1}",
					  "{a:1}",
					  "'x'",
					  "\"\\x\"",
					  "\"\\ud800\"",
					  "\"\\udc00\"",
					  "\"a\tb\"",
					  "\"\xc0\xaf\"",
					  "\"\xed\xa0\x80\"",
					  "[1]]",
					  "{} x",
					  "NaN",
					  "tru",
					  "{\"a\":1,\"a\":2}",
					  "1e",
					  "-",
					  "[\"unterminated]"};
	char err[200];
	for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
		cb_json *j =
		    cb_json_parse(good[k], strlen(good[k]), err, sizeof err);
		if (j == NULL) {
			printf("FAIL json: rejected valid %s: %s\n", good[k],
			       err);
			fails++;
		} else {
			cb_selftest_passed++;
		}
		cb_json_free(j);
	}
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		cb_json *j =
		    cb_json_parse(bad[k], strlen(bad[k]), err, sizeof err);
		if (j != NULL) {
			printf("FAIL json: accepted invalid '%s'\n", bad[k]);
			fails++;
		} else {
			cb_selftest_passed++;
		}
		cb_json_free(j);
	}
	/* Values survive: a surrogate pair decodes to U+1F600. */
	const char *doc =
	    "{\"s\":\"\\ud83d\\ude00\",\"n\":-12.5e1,\"x\":\"NaN\"}";
	cb_json *j = cb_json_parse(doc, strlen(doc), err, sizeof err);
	const cb_json *s = cb_json_get(j, "s");
	if (j == NULL || s == NULL || s->type != CB_JSTR ||
	    strcmp(s->str, "\xf0\x9f\x98\x80") != 0 ||
	    cb_json_number(cb_json_get(j, "n")) != -125.0 ||
	    !isnan(cb_json_number(cb_json_get(j, "x")))) {
		printf("FAIL json: decoded values\n");
		fails++;
	} else {
		cb_selftest_passed++;
	}
	cb_json_free(j);
	/* The writer's output parses back to the same values. */
	char *mem = NULL;
	size_t memlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	if (f != NULL) {
		fputs("[", f);
		cb_json_str(f, "q\"\\\n\t\x01\xc3\xa9");
		fputs(",", f);
		cb_json_num(f, 0.1);
		fputs(",", f);
		cb_json_num(f, 1e300);
		fputs(",", f);
		cb_json_num(f, NAN);
		fputs(",", f);
		cb_json_num(f, -INFINITY);
		fputs(",", f);
		cb_json_num(f, 42);
		fputs("]", f);
		fclose(f);
		j = cb_json_parse(mem, memlen, err, sizeof err);
		if (j == NULL || j->n != 6 ||
		    strcmp(j->kid[0].str, "q\"\\\n\t\x01\xc3\xa9") != 0 ||
		    j->kid[1].num != 0.1 || j->kid[2].num != 1e300 ||
		    !isnan(cb_json_number(&j->kid[3])) ||
		    cb_json_number(&j->kid[4]) != -INFINITY ||
		    j->kid[5].num != 42) {
			printf("FAIL json: writer round trip (%s)\n", mem);
			fails++;
		} else {
			cb_selftest_passed++;
		}
		cb_json_free(j);
		free(mem);
	}
	return fails;
}
