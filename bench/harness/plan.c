/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plan.c - the run plan (JMH's expansion of benchmarks x modes x params),
 * the parameters a workload reads, the progress line, and the execution of
 * each point in this process or in forks: fork + exec of /proc/self/exe with
 * the same command line plus --fork-child K, results back over a pipe as
 * text lines, a heartbeat after every iteration, and a parent that kills a
 * fork that stays silent longer than the timeout and reports it TIMEOUT.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "histogram.h"
#include "plan.h"

/* ---- interned strings ---------------------------------------------------- */

typedef struct istr {
	struct istr *next;
	char s[];
} istr;
static istr *interned;

const char *cb_intern(const char *s)
{
	for (istr *p = interned; p != NULL; p = p->next)
		if (strcmp(p->s, s) == 0)
			return p->s;
	size_t n = strlen(s) + 1;
	istr *p = (istr *)malloc(sizeof *p + n);
	if (p == NULL)
		return NULL;
	memcpy(p->s, s, n);
	p->next = interned;
	interned = p;
	return p->s;
}

/* ---- modes and parameters ------------------------------------------------ */

static const struct {
	unsigned bit;
	const char *name;
} modes[] = {{CB_MODE_THRPT, "thrpt"},
	     {CB_MODE_AVGT, "avgt"},
	     {CB_MODE_SAMPLE, "sample"},
	     {CB_MODE_SS, "ss"}};
#define NMODES (sizeof modes / sizeof modes[0])

const char *cb_mode_name(unsigned mode)
{
	for (size_t k = 0; k < NMODES; k++)
		if (modes[k].bit == mode)
			return modes[k].name;
	return NULL;
}

static unsigned mode_bit(const char *name)
{
	for (size_t k = 0; k < NMODES; k++)
		if (strcmp(modes[k].name, name) == 0)
			return modes[k].bit;
	return 0;
}

int cb_parse_modes(const char *s, unsigned *out)
{
	unsigned m = 0;
	const char *p = s;
	while (*p != '\0') {
		size_t len = strcspn(p, ",");
		char word[16];
		if (len == 0 || len >= sizeof word)
			return -1;
		memcpy(word, p, len);
		word[len] = '\0';
		unsigned b = mode_bit(word);
		if (b == 0)
			return -1;
		m |= b;
		p += len;
		if (*p == ',')
			p++;
	}
	if (m == 0)
		return -1;
	*out = m;
	return 0;
}

const char *cb_param(const cb_options *o, const char *name)
{
	const cb_param_vals *p = cb_find_param_c(o, name);
	return p != NULL && p->nval > 0 ? p->val[0] : NULL;
}

int cb_param_u64(const cb_options *o, const char *name, uint64_t *v)
{
	const char *s = cb_param(o, name);
	if (s == NULL) {
		fprintf(stderr, "conq-bench: parameter %s has no value\n",
			name);
		return -1;
	}
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (end == s || *end != '\0' || errno != 0 || s[0] == '-') {
		fprintf(stderr,
			"conq-bench: parameter %s wants a number, not "
			"'%s'\n",
			name, s);
		return -1;
	}
	*v = (uint64_t)x;
	return 0;
}

/* ---- progress ------------------------------------------------------------ */

static const char *fmt_hms(double s, char *buf, size_t n)
{
	unsigned v = s > 359999 ? 359999u : (unsigned)(s + 0.5);
	snprintf(buf, n, "%02u:%02u:%02u", v / 3600, v / 60 % 60, v % 60);
	return buf;
}

void cb_progress(const cb_options *o, const char *line)
{
	struct cb_progress *p = o->progress;
	if (p == NULL)
		return;
	p->done++;
	if (p->done > p->total)
		p->total = p->done;
	double el = (double)(cb_now_ns() - p->t0) / 1e9;
	double eta = el / (double)p->done * (double)(p->total - p->done);
	char b1[16], b2[16];
	fprintf(stderr, "# [%4zu/%zu] %s  (%s elapsed, ETA %s)\n", p->done,
		p->total, line, fmt_hms(el, b1, sizeof b1),
		fmt_hms(eta, b2, sizeof b2));
	if (p->fd >= 0) {
		/* The heartbeat: the parent's timeout restarts. */
		static const char hb[] = "H\n";
		ssize_t w;
		do
			w = write(p->fd, hb, sizeof hb - 1);
		while (w < 0 && errno == EINTR);
	}
}

static struct cb_progress child_progress = {0, 0, 0, -1};

int cb_progress_parse(cb_options *o, const char *s)
{
	unsigned long long d, t, t0;
	char tail;
	if (sscanf(s, "%llu,%llu,%llu%c", &d, &t, &t0, &tail) != 3) {
		fprintf(stderr, "conq-bench: --progress-at wants D,T,T0\n");
		return -1;
	}
	child_progress.done = (size_t)d;
	child_progress.total = (size_t)t;
	child_progress.t0 = (uint64_t)t0;
	o->progress = &child_progress;
	return 0;
}

/* ---- the plan ------------------------------------------------------------ */

int cb_workload_selected(const cb_options *o, const cb_workload *w)
{
	if (w->test_only && !o->test_workloads)
		return 0;
	if (o->ninclude == 0)
		return !w->test_only || o->test_workloads;
	char name[160];
	snprintf(name, sizeof name, "%s.%s", w->name, w->group);
	for (size_t k = 0; k < o->ninclude; k++) {
		regex_t re;
		if (regcomp(&re, o->include[k], REG_EXTENDED | REG_NOSUB) !=
		    0) {
			fprintf(stderr, "conq-bench: bad regex '%s'\n",
				o->include[k]);
			return -1;
		}
		int hit = regexec(&re, name, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return 1;
	}
	return 0;
}

/* The values of w's parameter d: from -p or the preset, else its
 * defaults (split into a static pool: the plan lives until exit). */
static size_t param_values(const cb_options *o, const cb_param_def *d,
			   const char **out)
{
	const cb_param_vals *p = cb_find_param_c(o, d->name);
	size_t n = 0;
	if (p != NULL) {
		for (size_t k = 0; k < p->nval; k++)
			out[n++] = p->val[k];
		return n;
	}
	const char *s = d->defaults ? d->defaults : "";
	while (*s != '\0' && n < CB_MAX_LIST) {
		size_t len = strcspn(s, ",");
		char buf[128];
		snprintf(buf, sizeof buf, "%.*s", (int)len, s);
		out[n++] = cb_intern(buf);
		s += len;
		if (*s == ',')
			s++;
	}
	return n;
}

static int plan_add(cb_plan *plan, const cb_point *p)
{
	if (plan->n == plan->cap) {
		size_t cap = plan->cap ? 2 * plan->cap : 16;
		cb_point *np = (cb_point *)realloc(plan->p, cap * sizeof *np);
		if (np == NULL)
			return -1;
		plan->p = np;
		plan->cap = cap;
	}
	plan->p[plan->n++] = *p;
	return 0;
}

static int cmp_def(const void *a, const void *b)
{
	const cb_param_def *x = *(const cb_param_def *const *)a;
	const cb_param_def *y = *(const cb_param_def *const *)b;
	return strcmp(x->name, y->name);
}

int cb_plan_build(const cb_options *o, cb_plan *plan, int quiet)
{
	memset(plan, 0, sizeof *plan);
	/* Every -p NAME must be a parameter of a selected workload. */
	for (size_t k = 0; k < o->nparams; k++) {
		const cb_param_vals *pv = &o->params[k];
		if (!pv->given || strcmp(pv->name, "qCapacity") == 0)
			continue;
		int known = 0;
		for (size_t w = 0; w < cb_nworkloads && !known; w++) {
			const cb_workload *wl = cb_workloads[w];
			if (cb_workload_selected(o, wl) != 1)
				continue;
			for (size_t d = 0; d < wl->nparams; d++)
				known |=
				    strcmp(wl->params[d].name, pv->name) == 0;
		}
		if (!known) {
			fprintf(stderr,
				"conq-bench: no selected benchmark has a "
				"parameter '%s' (see -l)\n",
				pv->name);
			return 2;
		}
	}
	int any_mode = 0;
	for (size_t w = 0; w < cb_nworkloads; w++) {
		const cb_workload *wl = cb_workloads[w];
		int sel = cb_workload_selected(o, wl);
		if (sel < 0)
			return 2;
		if (sel == 0)
			continue;
		unsigned supported = wl->modes ? wl->modes : mode_bit(wl->mode);
		unsigned run =
		    o->modes ? (o->modes & supported) : mode_bit(wl->mode);
		if (run == 0) {
			if (!quiet)
				fprintf(
				    stderr,
				    "conq-bench: %s.%s does not run in the "
				    "mode(s) asked by -bm (it "
				    "supports:%s%s%s%s)\n",
				    wl->name, wl->group,
				    supported & CB_MODE_THRPT ? " thrpt" : "",
				    supported & CB_MODE_AVGT ? " avgt" : "",
				    supported & CB_MODE_SAMPLE ? " sample" : "",
				    supported & CB_MODE_SS ? " ss" : "");
			continue;
		}
		any_mode = 1;
		/* A contender that -p names and this build lacks is a usage
		 * error, before anything runs (as a qType). */
		if (wl->ncontenders > 0) {
			const cb_adapter *cs[CB_MAX_LIST * 4];
			if (cb_select_contenders(wl, o, cs, CB_MAX_LIST * 4,
						 quiet != 0) < 0)
				return 2;
		}
		/* Parameters in name order (JMH), values as given; the
		 * interleaved ones are not expanded (every value runs in each
		 * point, as the queues of qType do). */
		const cb_param_def *defs[CB_MAX_PARAMS];
		size_t nd = 0;
		for (size_t d = 0; d < wl->nparams && nd < CB_MAX_PARAMS; d++)
			if (!cb_param_is_interleaved(wl, wl->params[d].name))
				defs[nd++] = &wl->params[d];
		qsort(defs, nd, sizeof defs[0], cmp_def);
		const char *vals[CB_MAX_PARAMS][CB_MAX_LIST];
		size_t nv[CB_MAX_PARAMS], idx[CB_MAX_PARAMS];
		for (size_t d = 0; d < nd; d++) {
			nv[d] = param_values(o, defs[d], vals[d]);
			if (nv[d] == 0) {
				fprintf(stderr,
					"conq-bench: %s: parameter %s "
					"has no value\n",
					wl->name, defs[d]->name);
				return 2;
			}
		}
		size_t ntg = wl->groups ? o->ntg : 1;
		for (size_t mi = 0; mi < NMODES; mi++) {
			if (!(run & modes[mi].bit))
				continue;
			for (size_t s = 0; s < ntg; s++) {
				cb_point pt;
				memset(&pt, 0, sizeof pt);
				pt.wl = wl;
				pt.mode = modes[mi].bit;
				pt.tg_p = wl->groups ? o->tg_p[s] : 1;
				pt.tg_c = wl->groups ? o->tg_c[s] : 1;
				if (wl->groups) {
					const cb_adapter *ads[CB_MAX_LIST * 4],
					    *skp[CB_MAX_LIST * 4];
					size_t nskp;
					int na = (wl->values
							  ? cb_select_value_adapters
							  : cb_select_adapters)(
					    o, pt.tg_p, pt.tg_c, ads,
					    CB_MAX_LIST * 4, skp, &nskp);
					if (na < 0)
						return 2;
					if (na == 0) {
						if (!quiet)
							fprintf(stderr,
								"conq-bench: "
								"%s: no "
								"selected "
								"queue serves "
								"-tg %u,%u: "
								"skipped\n",
								wl->name,
								pt.tg_p,
								pt.tg_c);
						plan->skipped++;
						continue;
					}
					pt.nqueues = (size_t)na;
				}
				/* The cross product, the last parameter
				 * varying fastest. */
				memset(idx, 0, sizeof idx);
				for (;;) {
					pt.n = nd;
					for (size_t d = 0; d < nd; d++) {
						pt.name[d] = defs[d]->name;
						pt.value[d] = vals[d][idx[d]];
					}
					if (plan_add(plan, &pt) != 0)
						return 2;
					size_t d = nd;
					while (d > 0) {
						d--;
						if (++idx[d] < nv[d])
							break;
						idx[d] = 0;
						if (d == 0) {
							d = (size_t)-1;
							break;
						}
					}
					if (nd == 0 || d == (size_t)-1)
						break;
				}
			}
		}
	}
	if (!any_mode && o->modes != 0) {
		fprintf(stderr, "conq-bench: no selected benchmark runs in the "
				"mode(s) asked by -bm\n");
		return 2;
	}
	if (plan->n == 0) {
		fprintf(stderr, "conq-bench: nothing to run (see -l)\n");
		return 2;
	}
	return 0;
}

void cb_plan_free(cb_plan *plan)
{
	free(plan->p);
	memset(plan, 0, sizeof *plan);
}

void cb_point_options(const cb_options *o, const cb_point *p, cb_options *po)
{
	*po = *o;
	po->mode = p->mode;
	po->ntg = 1;
	po->tg_p[0] = p->tg_p;
	po->tg_c[0] = p->tg_c;
	/* Every parameter down to one value: the point's, else its first;
	 * the workload's interleaved ones keep all theirs. */
	for (size_t k = 0; k < po->nparams; k++)
		if (!cb_param_is_interleaved(p->wl, po->params[k].name))
			po->params[k].nval = po->params[k].nval ? 1 : 0;
	for (size_t d = 0; d < p->n; d++) {
		cb_param_vals *pv = cb_find_param(po, p->name[d]);
		if (pv == NULL && po->nparams < CB_MAX_PARAMS) {
			pv = &po->params[po->nparams++];
			pv->name = p->name[d];
			pv->given = 0;
		}
		if (pv != NULL) {
			pv->val[0] = p->value[d];
			pv->nval = 1;
		}
	}
	const char *cap = cb_param(po, "qCapacity");
	po->ncapacity = 1;
	if (cap != NULL)
		po->capacity[0] = (size_t)strtoull(cap, NULL, 10);
}

void cb_point_desc(const cb_point *p, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s.%s %s", p->wl->name,
				      p->wl->group, cb_mode_name(p->mode));
	if (p->wl->groups && len < n)
		len += (size_t)snprintf(buf + len, n - len, " -tg %u,%u",
					p->tg_p, p->tg_c);
	for (size_t d = 0; d < p->n && len < n; d++)
		len += (size_t)snprintf(buf + len, n - len, " %s=%s",
					p->name[d], p->value[d]);
}

size_t cb_point_steps(const cb_options *o, const cb_point *p)
{
	if (p->wl->steps != NULL) {
		cb_options po;
		cb_point_options(o, p, &po);
		return p->wl->steps(p->wl, &po);
	}
	size_t q = p->nqueues ? p->nqueues : 1;
	return q * ((size_t)o->wi + (size_t)o->i);
}

/* ---- results: stamping, merging, failures -------------------------------- */

/* Give the results [from, n) of rs the point's parameters (after their
 * own, cb_result_param's) and one fork. */
static int stamp(cb_results *rs, size_t from, const cb_point *p)
{
	for (size_t k = from; k < rs->n; k++) {
		cb_result *r = &rs->r[k];
		for (size_t d = 0; d < p->n && r->nparams < 16; d++) {
			r->params[r->nparams].name = p->name[d];
			r->params[r->nparams++].value = p->value[d];
		}
		if (r->mode == NULL)
			r->mode = cb_mode_name(p->mode);
		if (r->fork_len == NULL) {
			r->fork_len = (size_t *)malloc(sizeof *r->fork_len);
			if (r->fork_len == NULL)
				return -1;
			r->fork_len[0] = r->primary.n;
			r->forks = 1;
		}
	}
	return 0;
}

static int same_result(const cb_result *a, const cb_result *b)
{
	if (strcmp(a->benchmark, b->benchmark) != 0 ||
	    strcmp(a->mode, b->mode) != 0 || a->adapter != b->adapter ||
	    a->producers != b->producers || a->consumers != b->consumers ||
	    a->capacity != b->capacity || a->nparams != b->nparams)
		return 0;
	return cb_result_same_params(a, b);
}

static int append_series(cb_series *d, const cb_series *s)
{
	double *v = (double *)realloc(d->v, (d->n + s->n + 1) * sizeof *v);
	if (v == NULL)
		return -1;
	memcpy(v + d->n, s->v, s->n * sizeof *v);
	d->v = v;
	d->n += s->n;
	return 0;
}

static int merge_one(cb_result *d, cb_result *s)
{
	size_t n0 = d->primary.n;
	if (append_series(&d->primary, &s->primary) != 0)
		return -1;
	for (size_t j = 0; j < d->nsecondary; j++)
		for (size_t i = 0; i < s->nsecondary; i++)
			if (strcmp(d->secondary[j].label,
				   s->secondary[i].label) == 0) {
				if (append_series(&d->secondary[j],
						  &s->secondary[i]) != 0)
					return -1;
				break;
			}
	unsigned char *dist =
	    (unsigned char *)realloc(d->disturbed, d->primary.n + 1);
	if (dist == NULL)
		return -1;
	memset(dist + n0, 0, s->primary.n);
	if (s->disturbed != NULL)
		memcpy(dist + n0, s->disturbed, s->primary.n);
	d->disturbed = dist;
	size_t *fl =
	    (size_t *)realloc(d->fork_len, (d->forks + s->forks) * sizeof *fl);
	if (fl == NULL)
		return -1;
	for (unsigned f = 0; f < s->forks; f++)
		fl[d->forks + f] = s->fork_len[f];
	d->fork_len = fl;
	d->forks += s->forks;
	d->overruns += s->overruns;
	d->ndisturbed += s->ndisturbed;
	d->violations += s->violations;
	d->reorders += s->reorders;
	d->starved += s->starved;
	d->pinned &= s->pinned;
	d->oversubscribed |= s->oversubscribed;
	d->checked &= s->checked;
	if (s->max_drained > d->max_drained)
		d->max_drained = s->max_drained;
	if (s->max_window > d->max_window)
		d->max_window = s->max_window;
	if (s->hist != NULL) {
		if (d->hist == NULL) {
			d->hist = s->hist;
			d->hist_unit = s->hist_unit;
			s->hist = NULL;
		} else {
			cb_hist_merge(d->hist, s->hist);
		}
	}
	return 0;
}

int cb_results_merge(cb_results *dst, cb_results *src)
{
	int rc = 0;
	for (size_t k = 0; k < src->n && rc == 0; k++) {
		cb_result *s = &src->r[k];
		cb_result *d = NULL;
		for (size_t j = 0; j < dst->n && d == NULL; j++)
			if (same_result(&dst->r[j], s))
				d = &dst->r[j];
		if (d != NULL) {
			rc = merge_one(d, s);
			continue;
		}
		d = cb_results_add(dst);
		if (d == NULL) {
			rc = -1;
			break;
		}
		*d = *s;
		memset(s, 0, sizeof *s); /* moved */
	}
	dst->violations += src->violations;
	dst->oversubscribed |= src->oversubscribed;
	for (size_t k = 0; k < src->nfail && rc == 0; k++)
		rc = cb_results_fail(dst, src->fail[k].timeout,
				     src->fail[k].what, src->fail[k].why);
	cb_results_free(src);
	return rc;
}

/* ---- serialization ------------------------------------------------------- */

typedef struct sbuf {
	char *p;
	size_t n, cap;
	int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		int k = b->p ? vsnprintf(b->p + b->n, room, fmt, ap) : -1;
		va_end(ap);
		if (k >= 0 && (size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		size_t cap = b->cap ? 2 * b->cap : 4096;
		while (k >= 0 && cap - b->n <= (size_t)k)
			cap *= 2;
		char *np = (char *)realloc(b->p, cap);
		if (np == NULL) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
}

static void sb_series(sbuf *b, const cb_series *s)
{
	sb_printf(b, "S\t%s\t%s\t%zu", s->label, s->unit, s->n);
	for (size_t k = 0; k < s->n; k++)
		sb_printf(b, "\t%.17g", s->v[k]);
	sb_printf(b, "\n");
}

int cb_results_write(int fd, const cb_results *rs)
{
	sbuf b = {NULL, 0, 0, 0};
	for (size_t k = 0; k < rs->n; k++) {
		const cb_result *r = &rs->r[k];
		sb_printf(
		    &b,
		    "R\t%s\t%s\t%s\t%zu\t%u\t%u\t%zu\t%u\t%u\t%u\t%" PRIu64
		    "\t%u\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t%d\t%zu\n",
		    r->benchmark, r->mode ? r->mode : "-",
		    r->adapter ? r->adapter->name : "-", r->capacity,
		    r->producers, r->consumers, r->capacity_actual, r->overruns,
		    r->ndisturbed, r->violations, r->reorders, r->starved,
		    r->pinned, r->oversubscribed, r->max_drained, r->max_window,
		    r->checked, r->nsecondary);
		/* The result's own parameters (the point's are stamped
		 * again by the parent). */
		for (size_t j = 0; j < r->nparams; j++)
			sb_printf(&b, "P\t%s\t%s\n", r->params[j].name,
				  r->params[j].value);
		sb_series(&b, &r->primary);
		for (size_t j = 0; j < r->nsecondary; j++)
			sb_series(&b, &r->secondary[j]);
		if (r->disturbed != NULL) {
			sb_printf(&b, "D\t%zu\t", r->primary.n);
			for (size_t i = 0; i < r->primary.n; i++)
				sb_printf(&b, "%c",
					  r->disturbed[i] ? '1' : '0');
			sb_printf(&b, "\n");
		}
		if (r->hist != NULL) {
			const cb_hist *h = r->hist;
			size_t nz = 0;
			for (unsigned i = 0; i < CB_HIST_NBUCKETS; i++)
				nz += h->b[i] != 0;
			sb_printf(&b,
				  "Q\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				  "\t%.17g\t%.17g\t%zu",
				  r->hist_unit ? r->hist_unit : "ns", h->count,
				  h->min, h->max, h->sum, h->sumsq, nz);
			for (unsigned i = 0; i < CB_HIST_NBUCKETS; i++)
				if (h->b[i] != 0)
					sb_printf(&b, "\t%u:%" PRIu64, i,
						  h->b[i]);
			sb_printf(&b, "\n");
		}
	}
	for (size_t k = 0; k < rs->nfail; k++)
		sb_printf(&b, "F\t%d\t%s\t%s\n", rs->fail[k].timeout,
			  rs->fail[k].what, rs->fail[k].why);
	sb_printf(&b, "E\t%u\t%d\n", rs->violations, rs->oversubscribed);
	if (b.oom) {
		free(b.p);
		return -1;
	}
	size_t off = 0;
	while (off < b.n) {
		ssize_t w = write(fd, b.p + off, b.n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			free(b.p);
			return -1;
		}
		off += (size_t)w;
	}
	free(b.p);
	return 0;
}

/* Split line (NUL-terminated, modified) at tabs; returns the field count. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;
	while (n < max) {
		f[n++] = p;
		char *t = strchr(p, '\t');
		if (t == NULL)
			break;
		*t = '\0';
		p = t + 1;
	}
	return n;
}

static const cb_adapter *adapter_by_name(const char *name)
{
	for (size_t k = 0; k < cb_nadapters; k++)
		if (strcmp(cb_adapters[k]->name, name) == 0)
			return cb_adapters[k];
	return cb_contender_by_name(name);
}

static int read_series(char **f, size_t nf, cb_series *s)
{
	if (nf < 4)
		return -1;
	s->label = cb_intern(f[1]);
	s->unit = cb_intern(f[2]);
	size_t n = (size_t)strtoull(f[3], NULL, 10);
	if (nf != 4 + n)
		return -1;
	s->v = (double *)malloc((n + 1) * sizeof *s->v);
	if (s->v == NULL || s->label == NULL || s->unit == NULL)
		return -1;
	for (size_t k = 0; k < n; k++)
		s->v[k] = strtod(f[4 + k], NULL);
	s->n = n;
	return 0;
}

int cb_results_read(const char *buf, size_t len, cb_results *rs)
{
	char *copy = (char *)malloc(len + 1);
	if (copy == NULL)
		return -1;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	size_t maxf = 64;
	for (size_t k = 0; k < len; k++)
		maxf += copy[k] == '\t';
	char **f = (char **)malloc(maxf * sizeof *f);
	int rc = f == NULL ? -1 : 0, ended = 0;
	cb_result *r = NULL;
	size_t nsec_left = 0, want_sec = 0;
	char *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line != NULL && rc == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t nf = split_tabs(line, f, maxf);
		switch (line[0]) {
		case 'H':
			break;
		case 'R': {
			if (nf != 19) {
				rc = -1;
				break;
			}
			r = cb_results_add(rs);
			if (r == NULL) {
				rc = -1;
				break;
			}
			r->benchmark = cb_intern(f[1]);
			r->mode = strcmp(f[2], "-") ? cb_intern(f[2]) : NULL;
			r->adapter = adapter_by_name(f[3]);
			if (r->adapter == NULL && strcmp(f[3], "-") != 0)
				rc = -1;
			r->capacity = (size_t)strtoull(f[4], NULL, 10);
			r->producers = (unsigned)strtoul(f[5], NULL, 10);
			r->consumers = (unsigned)strtoul(f[6], NULL, 10);
			r->capacity_actual = (size_t)strtoull(f[7], NULL, 10);
			r->overruns = (unsigned)strtoul(f[8], NULL, 10);
			r->ndisturbed = (unsigned)strtoul(f[9], NULL, 10);
			r->violations = (unsigned)strtoul(f[10], NULL, 10);
			r->reorders = strtoull(f[11], NULL, 10);
			r->starved = (unsigned)strtoul(f[12], NULL, 10);
			r->pinned = atoi(f[13]);
			r->oversubscribed = atoi(f[14]);
			r->max_drained = strtoull(f[15], NULL, 10);
			r->max_window = strtoull(f[16], NULL, 10);
			r->checked = atoi(f[17]);
			want_sec = (size_t)strtoull(f[18], NULL, 10);
			if (want_sec > CB_MAX_SECONDARY)
				rc = -1;
			nsec_left = want_sec + 1;
			break;
		}
		case 'S':
			if (r == NULL || nsec_left == 0) {
				rc = -1;
				break;
			}
			if (nsec_left == want_sec + 1)
				rc = read_series(f, nf, &r->primary);
			else
				rc = read_series(
				    f, nf, &r->secondary[r->nsecondary++]);
			nsec_left--;
			break;
		case 'P':
			if (r == NULL || nf != 3 ||
			    cb_result_param(r, f[1], f[2]) != 0)
				rc = -1;
			break;
		case 'D': {
			if (r == NULL || nf != 3) {
				rc = -1;
				break;
			}
			size_t n = (size_t)strtoull(f[1], NULL, 10);
			if (strlen(f[2]) != n) {
				rc = -1;
				break;
			}
			r->disturbed = (unsigned char *)malloc(n + 1);
			if (r->disturbed == NULL) {
				rc = -1;
				break;
			}
			for (size_t i = 0; i < n; i++)
				r->disturbed[i] = f[2][i] == '1';
			break;
		}
		case 'Q': {
			if (r == NULL || nf < 8) {
				rc = -1;
				break;
			}
			size_t nz = (size_t)strtoull(f[7], NULL, 10);
			if (nf != 8 + nz || r->hist != NULL) {
				rc = -1;
				break;
			}
			cb_hist *h = cb_hist_new();
			if (h == NULL) {
				rc = -1;
				break;
			}
			r->hist = h;
			r->hist_unit = cb_intern(f[1]);
			for (size_t i = 0; i < nz && rc == 0; i++) {
				char *c = strchr(f[8 + i], ':');
				unsigned long bi = strtoul(f[8 + i], NULL, 10);
				if (c == NULL || bi >= CB_HIST_NBUCKETS)
					rc = -1;
				else
					h->b[bi] = strtoull(c + 1, NULL, 10);
			}
			h->count = strtoull(f[2], NULL, 10);
			h->min = strtoull(f[3], NULL, 10);
			h->max = strtoull(f[4], NULL, 10);
			h->sum = strtod(f[5], NULL);
			h->sumsq = strtod(f[6], NULL);
			break;
		}
		case 'F':
			if (nf != 4 ||
			    cb_results_fail(rs, atoi(f[1]), f[2], f[3]) != 0)
				rc = -1;
			break;
		case 'E':
			if (nf != 3) {
				rc = -1;
				break;
			}
			rs->violations += (unsigned)strtoul(f[1], NULL, 10);
			rs->oversubscribed |= atoi(f[2]);
			ended = 1;
			break;
		default:
			rc = -1;
		}
	}
	free(f);
	free(copy);
	if (rc == 0 && !ended)
		rc = -1;
	return rc;
}

/* ---- running a point ----------------------------------------------------- */

static int run_here(const cb_options *o, const cb_env *env, const cb_point *p,
		    cb_results *out)
{
	cb_options po;
	cb_point_options(o, p, &po);
	cb_results tmp;
	memset(&tmp, 0, sizeof tmp);
	int rc = p->wl->run(p->wl, &po, env, &tmp);
	if (stamp(&tmp, 0, p) != 0 || cb_results_merge(out, &tmp) != 0) {
		fprintf(stderr, "conq-bench: out of memory\n");
		return 1;
	}
	return rc;
}

/* Read everything the child writes until EOF, killing it if it stays
 * silent for longer than silence_ms. Returns 0 (EOF), or 1 (killed). */
static int drain_child(int fd, pid_t pid, int silence_ms, sbuf *b)
{
	for (;;) {
		struct pollfd pfd = {fd, POLLIN, 0};
		int k = poll(&pfd, 1, silence_ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k == 0) {
			kill(pid, SIGKILL); /* our own child, by its pid */
			return 1;
		}
		char chunk[65536];
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		size_t old = b->n;
		sb_printf(b, "%.*s", (int)n, chunk);
		if (b->oom || b->n != old + (size_t)n) {
			kill(pid, SIGKILL);
			return 1;
		}
	}
}

static int run_fork(const cb_options *o, const cb_point *p, size_t k,
		    unsigned f, cb_results *out)
{
	char what[256], desc[200];
	cb_point_desc(p, desc, sizeof desc);
	snprintf(what, sizeof what, "%s, fork %u of %d", desc, f + 1, o->forks);
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		fprintf(stderr, "conq-bench: pipe: %s\n", strerror(errno));
		return cb_results_fail(out, 0, what, "pipe() failed") ? 1 : 4;
	}
	struct cb_progress *pr = o->progress;
	char pk[32], pfd[32], pat[96];
	snprintf(pk, sizeof pk, "%zu", k);
	snprintf(pfd, sizeof pfd, "%d", fds[1]);
	snprintf(pat, sizeof pat, "%zu,%zu,%" PRIu64, pr ? pr->done : 0,
		 pr ? pr->total : 0, pr ? pr->t0 : cb_now_ns());
	char **argv = (char **)calloc((size_t)o->argc + 8, sizeof *argv);
	if (argv == NULL) {
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	int a = 0;
	for (int i = 0; i < o->argc; i++)
		argv[a++] = o->argv[i];
	argv[a++] = (char *)"--fork-child";
	argv[a++] = pk;
	argv[a++] = (char *)"--fork-fd";
	argv[a++] = pfd;
	argv[a++] = (char *)"--progress-at";
	argv[a++] = pat;
	argv[a] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* The child keeps the write end across exec. */
		int fl = fcntl(fds[1], F_GETFD);
		fcntl(fds[1], F_SETFD, fl & ~FD_CLOEXEC);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "conq-bench: exec /proc/self/exe: %s\n",
			strerror(errno));
		_exit(4);
	}
	free(argv);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		fprintf(stderr, "conq-bench: fork: %s\n", strerror(errno));
		return cb_results_fail(out, 0, what, "fork() failed") ? 1 : 4;
	}
	/* Silence allowed: the child's own stuck-iteration detection (2 x -to
	 * + the iteration) goes first, with its better message. */
	uint64_t it = o->r_ns > o->w_ns ? o->r_ns : o->w_ns;
	uint64_t ms = (2 * o->timeout_ns + it) / CB_NS_PER_MS + 2000;
	if (ms > INT32_MAX)
		ms = INT32_MAX;
	sbuf b = {NULL, 0, 0, 0};
	int killed = drain_child(fds[0], pid, (int)ms, &b);
	close(fds[0]);
	/* The child printed a status line per heartbeat: count them. */
	for (size_t i = 0; pr != NULL && i + 1 < b.n; i++)
		if (b.p[i] == 'H' && b.p[i + 1] == '\n' &&
		    (i == 0 || b.p[i - 1] == '\n'))
			pr->done++;
	if (pr != NULL && pr->done > pr->total)
		pr->total = pr->done;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	char why[256];
	int rc = 0;
	if (killed) {
		snprintf(why, sizeof why,
			 "no iteration ended for %.1f s (2 x -to + the "
			 "iteration time + 2 s): the fork (pid %d) was killed",
			 (double)ms / 1e3, (int)pid);
		fprintf(stderr, "conq-bench: %s: TIMEOUT: %s\n", what, why);
		rc = cb_results_fail(out, 1, what, why) ? 1 : 3;
	} else if (WIFSIGNALED(st)) {
		snprintf(why, sizeof why, "the fork died of signal %d",
			 WTERMSIG(st));
		fprintf(stderr, "conq-bench: %s: FAILED: %s\n", what, why);
		rc = cb_results_fail(out, 0, what, why) ? 1 : 4;
	} else if (WEXITSTATUS(st) == 3) {
		snprintf(why, sizeof why,
			 "an iteration got stuck (see above): the fork gave "
			 "up");
		rc = cb_results_fail(out, 1, what, why) ? 1 : 3;
	} else if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1) {
		snprintf(why, sizeof why, "the fork exited with status %d",
			 WEXITSTATUS(st));
		rc = cb_results_fail(out, 0, what, why) ? 1
		     : WEXITSTATUS(st) == 2		? 2
							: 4;
	} else {
		cb_results tmp;
		memset(&tmp, 0, sizeof tmp);
		if (b.oom || cb_results_read(b.p, b.n, &tmp) != 0) {
			cb_results_free(&tmp);
			snprintf(why, sizeof why,
				 "unreadable results from the fork");
			fprintf(stderr, "conq-bench: %s: FAILED: %s\n", what,
				why);
			rc = cb_results_fail(out, 0, what, why) ? 1 : 4;
		} else if (stamp(&tmp, 0, p) != 0 ||
			   cb_results_merge(out, &tmp) != 0) {
			rc = 1;
		}
	}
	free(b.p);
	return rc;
}

int cb_point_run(const cb_options *o, const cb_env *env, const cb_plan *plan,
		 size_t k, cb_results *rs)
{
	const cb_point *p = &plan->p[k];
	if (o->forks == 0)
		return run_here(o, env, p, rs);
	int worst = 0;
	for (unsigned f = 0; f < (unsigned)o->forks; f++) {
		struct cb_progress *pr = o->progress;
		char desc[200], b1[16];
		cb_point_desc(p, desc, sizeof desc);
		if (pr != NULL && pr->done > 0) {
			double el = (double)(cb_now_ns() - pr->t0) / 1e9;
			double eta = el / (double)pr->done *
				     (double)(pr->total - pr->done);
			printf("\n# Run progress: %.2f%% complete, ETA %s\n",
			       100.0 * (double)pr->done / (double)pr->total,
			       fmt_hms(eta, b1, sizeof b1));
		} else {
			printf("\n# Run progress: 0.00%% complete\n");
		}
		printf("# Fork: %u of %d  (%s)\n", f + 1, o->forks, desc);
		fflush(stdout);
		int rc = run_fork(o, p, k, f, rs);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}

int cb_child_main(const cb_options *o, const cb_env *env)
{
	cb_plan plan;
	if (cb_plan_build(o, &plan, 1) != 0)
		return 2;
	if (o->child_point < 0 || (size_t)o->child_point >= plan.n) {
		fprintf(stderr, "conq-bench: --fork-child %ld: no such point\n",
			o->child_point);
		cb_plan_free(&plan);
		return 2;
	}
	const cb_point *p = &plan.p[o->child_point];
	cb_options po;
	cb_point_options(o, p, &po);
	if (po.progress != NULL)
		po.progress->fd = o->child_fd;
	cb_results rs;
	memset(&rs, 0, sizeof rs);
	int rc = p->wl->run(p->wl, &po, env, &rs);
	if (cb_results_write(o->child_fd, &rs) != 0) {
		fprintf(stderr, "conq-bench: cannot send the results to the "
				"parent\n");
		rc = 4;
	}
	cb_results_free(&rs);
	cb_plan_free(&plan);
	fflush(NULL);
	return rc;
}
