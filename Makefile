# adjlist: PGXS build.  Override PG_CONFIG to build against another server:
#   make PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
EXTENSION = adjlist
MODULE_big = adjlist
OBJS = \
	src/adjlist.o \
	src/adjkey_io.o \
	src/adjkey_cmp.o \
	src/adjkey_funcs.o \
	src/adjkey_support.o \
	src/index_sync.o \
	src/index_direct.o \
	src/write_shard.o \
	src/graph_source.o \
	src/graph_query.o \
	src/graph_traverse.o

DATA = $(wildcard src/adjlist--*.sql)
HEADERS =

# pg_regress suites: sql/<name>.sql against expected/<name>.out
REGRESS = adjkey_io adjkey_order adjkey_index adjkey_parts adjkey_random adjkey_encoding inverted_index write_api graph graph_random graph_security graph_limits write_shards
REGRESS_OPTS = --load-extension=adjlist --encoding=UTF8

PG_CPPFLAGS = -I$(srcdir)/src
EXTRA_CLEAN = results regression.diffs regression.out output_iso tmp_check

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: rebuild everything when a
# shared header changes
$(OBJS): src/adjlist.h src/compat.h src/graph.h
