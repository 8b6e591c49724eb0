# adjlist: PGXS build.  Override PG_CONFIG to build against another server:
#   make PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
EXTENSION = adjlist
EXTVERSION = 0.3
MODULE_big = adjlist
OBJS = \
	src/adjlist.o \
	src/adjkey_io.o \
	src/adjkey_cmp.o \
	src/adjkey_funcs.o \
	src/adjkey_support.o \
	src/catalog.o \
	src/rel_cache.o \
	src/scan_key.o \
	src/registry.o \
	src/registry_read.o \
	src/registry_check.o \
	src/registry_write.o \
	src/base_key.o \
	src/table_options.o \
	src/plan_cache.o \
	src/index_rule.o \
	src/index_predicate.o \
	src/base_scan.o \
	src/writer_info.o \
	src/index_write.o \
	src/index_write_sql.o \
	src/index_sync.o \
	src/sync_setup.o \
	src/index_sync_check.o \
	src/index_sync_truncate.o \
	src/index_sync_leaving.o \
	src/sync_guard.o \
	src/api_guard.o \
	src/index_admin.o \
	src/index_create.o \
	src/index_build.o \
	src/index_check.o \
	src/ddl_collected.o \
	src/index_guard.o \
	src/index_guard_drop.o \
	src/index_guard_end.o \
	src/index_guard_names.o \
	src/index_guard_cascade.o \
	src/index_guard_foreign.o \
	src/detach_pending.o \
	src/index_persistence.o \
	src/index_restore.o \
	src/index_update.o \
	src/uninstall.o \
	src/uninstall_plan.o \
	src/uninstall_rewrite.o \
	src/write_api.o \
	src/write_api_table.o \
	src/write_api_index.o \
	src/write_api_put.o \
	src/write_api_cond.o \
	src/write_api_owner.o \
	src/write_shard.o \
	src/graph_meta.o \
	src/graph_reader.o \
	src/graph_scan_direct.o \
	src/heap_prefetch.o \
	src/graph_scan_prefix.o \
	src/graph_scan_spi.o \
	src/graph_nodes.o \
	src/graph_query.o \
	src/graph_neighbor_scan.o \
	src/graph_dynamo_query.o \
	src/query_table.o \
	src/graph_batch_get.o \
	src/graph_traverse.o \
	src/graph_rank.o \
	src/graph_export.o \
	src/graph_weighted.o \
	src/graph_estimate.o \
	src/graph_columns.o \
	src/dynamo_io.o

# The install script of the current version and the update script to it
# are assembled from the same parts (src/sql/), so no definition is written
# twice: the parts that create or replace serve both; type.sql and
# registry.sql only a fresh install, the update--* parts only the update.
# The scripts of earlier versions are kept as released.
SQL_PARTS = src/sql/bounds.sql src/sql/text_ops.sql src/sql/options.sql src/sql/index.sql src/sql/access.sql src/sql/events.sql \
	src/sql/graph.sql src/sql/write_api.sql
DATA_built = src/adjlist--$(EXTVERSION).sql src/adjlist--0.2--$(EXTVERSION).sql
DATA = src/adjlist--0.1.sql src/adjlist--0.1--0.2.sql

# pg_regress suites: sql/<name>.sql against expected/<name>.out
REGRESS = adjkey_io adjkey_order adjkey_index adjkey_text adjkey_parts adjkey_random adjkey_encoding inverted_index write_api write_api_cache graph graph_random graph_security graph_limits graph_estimate graph_keys graph_filter graph_weighted write_shards sparse_index ttl ttl_graph create_concurrently security install uninstall review_defects dynamo paging sync_order sync_recheck truncate_triggers partition_owners ddl_triggers dependency_drops dynamo_fidelity owner_settings owner_privileges neighbor_scan graph_prefix_pass predicate_binding subscriber_triggers moved_names sync_cache
REGRESS_OPTS = --load-extension=adjlist --encoding=UTF8

# pg_isolation_regress specs (test/isolation/specs) and TAP tests (test/t),
# run by "make installcheck" against an installed adjlist like REGRESS.
# TAP tests start servers of their own (initdb refuses to run as root:
# test/t/run.sh runs them as the postgres user); test/check.sh runs the
# three kinds separately.
ISOLATION = $(sort $(basename $(notdir $(wildcard $(srcdir)/test/isolation/specs/*.spec))))
ISOLATION_OPTS = --inputdir=$(srcdir)/test/isolation --load-extension=adjlist
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
EXTRA_CLEAN = results regression.diffs regression.out output_iso tmp_check

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# (after PGXS, which sets PROVE_FLAGS itself) the TAP tests' own modules
PROVE_FLAGS += -I test/t

src/adjlist--$(EXTVERSION).sql: src/sql/head-install.sql src/sql/type.sql src/sql/registry.sql $(SQL_PARTS)
	cat src/sql/head-install.sql src/sql/type.sql src/sql/bounds.sql src/sql/text_ops.sql \
		src/sql/registry.sql $(filter-out src/sql/bounds.sql src/sql/text_ops.sql,$(SQL_PARTS)) > $@

src/adjlist--0.2--$(EXTVERSION).sql: src/sql/head-update.sql src/sql/update--0.2--0.3-pre.sql \
		$(SQL_PARTS) src/sql/update--0.2--0.3-post.sql
	cat src/sql/head-update.sql src/sql/update--0.2--0.3-pre.sql $(SQL_PARTS) \
		src/sql/update--0.2--0.3-post.sql > $@

# PGXS does not track header dependencies: rebuild everything when a
# shared header changes
$(OBJS): $(wildcard src/*.h)

# A PGXN distribution: the committed tree as $(EXTENSION)-<version>.zip
# (META.json at its top names the version).
DISTVERSION = $(shell sed -n 's/^ *"version": "\([^"]*\)".*/\1/p' $(srcdir)/META.json | head -1)
dist:
	git -C $(srcdir) archive --format zip --prefix=$(EXTENSION)-$(DISTVERSION)/ \
		-o $(abspath $(EXTENSION)-$(DISTVERSION).zip) HEAD
.PHONY: dist
