/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging for pmem-tuned: structured journal entries (POLICY=, SINK=,
 * KNOB=, VALUE=, OLD_VALUE=) when running under systemd, plain lines on
 * stderr otherwise.  Every message already carries its context in the
 * text, so both forms read the same.
 */
#ifndef PT_LOG_H
#define PT_LOG_H

#include <stdbool.h>
#include <syslog.h>

struct log_kv {
	const char *sink;
	const char *knob;
	const char *value;
	const char *old_value;
};

/* Journal under systemd (JOURNAL_STREAM / INVOCATION_ID, journald up); verbose adds LOG_DEBUG. */
void log_setup(bool verbose);
void log_set_policy(const char *path);
/* Messages above prio are dropped (a fuzzer keeps only LOG_CRIT and worse). */
void log_set_max_prio(int prio);
void log_kv_msg(int prio, const struct log_kv *kv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_err(...)	log_kv_msg(LOG_ERR, NULL, __VA_ARGS__)
#define log_warn(...)	log_kv_msg(LOG_WARNING, NULL, __VA_ARGS__)
#define log_notice(...)	log_kv_msg(LOG_NOTICE, NULL, __VA_ARGS__)
#define log_info(...)	log_kv_msg(LOG_INFO, NULL, __VA_ARGS__)
#define log_debug(...)	log_kv_msg(LOG_DEBUG, NULL, __VA_ARGS__)

/* A message about one knob: fields for the journal, same text for stderr. */
#define log_knob(prio, sink_, knob_, value_, old_, ...)			\
	do {								\
		const struct log_kv _kv = { .sink = (sink_), .knob = (knob_), \
			.value = (value_), .old_value = (old_) };	\
		log_kv_msg((prio), &_kv, __VA_ARGS__);			\
	} while (0)

#endif
