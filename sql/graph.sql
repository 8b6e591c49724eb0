--
-- graph functions on the demo graph: known answers
--
\set SHOW_CONTEXT never
CREATE TABLE graph (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO graph VALUES
	('USER#alice', 'PROFILE', '{"name": "Alice"}'),
	('USER#alice', 'FRIEND#USER#bob', '{"since": 2019}'),
	('USER#bob', 'FRIEND#USER#alice', '{"since": 2019}'),
	('USER#alice', 'FRIEND#USER#charlie', '{"since": 2020}'),
	('USER#charlie', 'FRIEND#USER#alice', '{"since": 2020}'),
	('USER#bob', 'FRIEND#USER#david', '{"since": 2021}'),
	('USER#david', 'FRIEND#USER#bob', '{"since": 2021}'),
	('USER#charlie', 'FRIEND#USER#erin', NULL),
	('USER#erin', 'FRIEND#USER#charlie', NULL),
	('USER#alice', 'FOLLOWS#USER#bob', NULL),
	('USER#alice', 'FOLLOWS#USER#david', NULL),
	('USER#charlie', 'FOLLOWS#USER#bob', NULL),
	('USER#david', 'FOLLOWS#USER#bob', NULL),
	('USER#bob', 'FOLLOWS#USER#charlie', NULL),
	('USER#alice', 'LIKES#POST#777', NULL),
	('USER#charlie', 'LIKES#POST#12345', NULL),
	('USER#charlie', 'LIKES#POST#777', NULL),
	('USER#charlie', 'LIKES#POST#9', NULL),
	('USER#david', 'LIKES#POST#12345', NULL),
	('USER#david', 'LIKES#POST#777', NULL),
	('POST#777', 'TAGGED#TAG#build', NULL),
	('POST#777', 'TAGGED#TAG#tools', NULL),
	('POST#12345', 'TAGGED#TAG#tea', NULL),
	('POST#12345', 'TAGGED#TAG#tools', NULL),
	('POST#9', 'TAGGED#TAG#build', NULL),
	('POST#9', 'TAGGED#TAG#tools', NULL),
	('USER#Frodo', 'VISITED#PLACE#Shire', NULL),
	('USER#Frodo', 'VISITED#PLACE#Gondor', NULL),
	('USER#Gandalf', 'VISITED#PLACE#Gondor', NULL),
	('USER#Gandalf', 'VISITED#PLACE#Rohan', NULL),
	('USER#Samwise', 'VISITED#PLACE#Shire', NULL),
	('INVOICE#92551', 'BILL#4224663', '{"amount": 12.5}'),
	('INVOICE#92551', 'BILL#4224687', '{"amount": 40}'),
	('INVOICE#92552', 'BILL#4224687', '{"amount": 40}'),
	-- other conventions: FRIEND#Bob -> USER#Bob, FRIEND-USER#x, sk = target
	('USER#Alice', 'FRIEND#Bob', NULL),
	('USER#Alice', 'FRIEND#Carol', NULL),
	('USER#Bob', 'FRIEND#Carol', NULL),
	('USER#Frodo', 'FRIEND-USER#Gandalf', NULL),
	('USER#Frodo', 'FRIEND-USER#Samwise', NULL),
	('USER#x', 'USER#y', NULL),
	('USER#x', 'USER#z', NULL),
	('USER#z', 'USER#y', NULL);

-- neighbors: out-edges in sort-key order, with the edge's keys and data
SELECT * FROM neighbors('graph', 'USER#alice', 'FRIEND#');
SELECT neighbor FROM neighbors('graph', 'USER#alice', 'FOLLOWS');		-- 'FOLLOWS' means 'FOLLOWS#'
SELECT neighbor FROM neighbors('graph', 'USER#alice', 'LIKES#POST#');	-- a longer prefix
SELECT neighbor FROM neighbors('graph', 'USER#nobody', 'FRIEND#');
-- limit, keyset pagination, backward
SELECT neighbor, sk FROM neighbors('graph', 'USER#alice', 'FOLLOWS#', lim => 1);
SELECT neighbor FROM neighbors('graph', 'USER#alice', 'FOLLOWS#', after => 'FOLLOWS#USER#bob');
SELECT neighbor FROM neighbors('graph', 'USER#alice', 'FOLLOWS#', backward => true);
SELECT neighbor FROM neighbors('graph', 'USER#alice', 'FOLLOWS#', backward => true, after => 'FOLLOWS#USER#david');
-- a limit below 1 is refused, as by query() (and DynamoDB)
SELECT count(*) FROM neighbors('graph', 'USER#alice', 'FOLLOWS#', lim => 0);
SELECT count(*) FROM reverse_neighbors('graph', 'USER#bob', 'FOLLOWS#', lim => -1);
SELECT count(*) FROM traverse('graph', 'USER#alice', 'FOLLOWS#', 2, lim => 0);
SELECT count(*) FROM walk_ranked('graph', 'USER#alice', '{FRIEND#,FRIEND#}', '{out,out}', lim => 0);
SELECT count(*) FROM people_you_may_know('graph', 'USER#alice', lim => 0);
SELECT count(*) FROM query_count('graph', 'USER#alice', lim => 0);
-- other conventions
SELECT neighbor FROM neighbors('graph', 'USER#Alice', 'FRIEND#', target_prefix => 'USER#');
SELECT neighbor FROM neighbors('graph', 'USER#Frodo', 'FRIEND-');
SELECT neighbor FROM neighbors('graph', 'USER#x', '', sk_is_target => true);

-- reverse_neighbors need the inverted index
SELECT neighbor FROM reverse_neighbors('graph', 'USER#bob', 'FOLLOWS#');
SELECT create_inverted_index('graph', include => '{data}');
SELECT * FROM reverse_neighbors('graph', 'USER#bob', 'FOLLOWS#');
SELECT neighbor FROM reverse_neighbors('graph', 'PLACE#Gondor', 'VISITED#');		-- who visited Gondor
SELECT neighbor, data FROM reverse_neighbors('graph', 'BILL#4224687', '', sk_is_target => true);	-- invoices of a bill
SELECT neighbor FROM reverse_neighbors('graph', 'USER#bob', 'FOLLOWS#', lim => 2);
SELECT neighbor FROM reverse_neighbors('graph', 'USER#bob', 'FOLLOWS#', after => 'USER#charlie');
SELECT neighbor FROM reverse_neighbors('graph', 'USER#bob', 'FOLLOWS#', backward => true);
SELECT neighbor FROM reverse_neighbors('graph', 'USER#Carol', 'FRIEND#', target_prefix => 'USER#');
SELECT neighbor FROM reverse_neighbors('graph', 'USER#Gandalf', 'FRIEND-');
SELECT neighbor FROM reverse_neighbors('graph', 'USER#y', '', sk_is_target => true);
SELECT neighbor FROM reverse_neighbors('graph', 'PLACE#Gondor', 'VISITED#', target_prefix => 'USER#');	-- not a USER: none

-- degree and edge existence
SELECT degree('graph', 'USER#bob', 'FOLLOWS#', 'in') AS bob_followers,
	   degree('graph', 'USER#alice', 'FOLLOWS#') AS alice_follows,
	   degree('graph', 'USER#alice', 'FOLLOWS#', 'out') AS alice_follows_too,
	   degree('graph', 'USER#nobody', 'FOLLOWS#', 'in') AS nobody;
SELECT has_edge('graph', 'USER#alice', 'USER#bob', 'FOLLOWS#') AS alice_bob,
	   has_edge('graph', 'USER#bob', 'USER#alice', 'FOLLOWS#') AS bob_alice,
	   has_edge('graph', 'USER#alice', 'USER#bo', 'FOLLOWS#') AS not_a_prefix,
	   has_edge('graph', 'USER#Alice', 'USER#Bob', 'FRIEND#', target_prefix => 'USER#') AS conv,
	   has_edge('graph', 'USER#x', 'USER#y', '', sk_is_target => true) AS sk_target;
SELECT degree('graph', 'USER#bob', 'FOLLOWS#', 'sideways');

-- traverse: breadth first, each node once with its depth and path
SELECT * FROM traverse('graph', 'USER#alice', 'FRIEND#', 3, with_path => true) ORDER BY depth, node;
SELECT node, depth FROM traverse('graph', 'USER#alice', 'FRIEND#', 1);
SELECT node, depth FROM traverse('graph', 'USER#alice', 'FRIEND#', 0);
SELECT node, depth, path FROM traverse('graph', 'USER#bob', 'FOLLOWS#', 2, 'in', with_path => true) ORDER BY depth, node;
SELECT node, depth FROM traverse('graph', 'USER#david', 'FOLLOWS#', 2, 'both') ORDER BY depth, node;
SELECT count(*) FROM traverse('graph', 'USER#alice', 'FRIEND#', 3, lim => 2);
SELECT reachable_count('graph', 'USER#alice', 'FRIEND#', 3) AS friends_within_3,
	   reachable_count('graph', 'USER#alice', 'FOLLOWS#', 1) AS follows,
	   reachable_count('graph', 'USER#bob', 'FOLLOWS#', 5, 'in') AS upstream;
SELECT node FROM traverse('graph', 'USER#x', '', 2, sk_is_target => true);
SELECT * FROM traverse('graph', 'USER#alice', 'FRIEND#', -1);
SELECT * FROM traverse('graph', 'USER#alice', 'FRIEND#', 2, 'sideways');

-- shortest_path: bidirectional BFS
SELECT shortest_path('graph', 'USER#erin', 'USER#david', 'FRIEND#') AS erin_to_david;
SELECT shortest_path('graph', 'USER#alice', 'USER#charlie', 'FOLLOWS#') AS direct_or_not;
SELECT shortest_path('graph', 'USER#charlie', 'USER#alice', 'FOLLOWS#') AS no_way;
SELECT shortest_path('graph', 'USER#charlie', 'USER#david', 'FOLLOWS#', direction => 'both') AS undirected;
SELECT shortest_path('graph', 'USER#erin', 'USER#david', 'FRIEND#', max_depth => 3) AS too_far;
SELECT shortest_path('graph', 'USER#erin', 'USER#erin', 'FRIEND#') AS itself;
SELECT shortest_path('graph', 'USER#bob', 'USER#alice', 'FOLLOWS#', direction => 'in') AS against_edges;

-- common neighbors (mutual friends), both directions
SELECT * FROM common_neighbors('graph', 'USER#bob', 'USER#charlie', 'FRIEND#');
SELECT * FROM common_neighbors('graph', 'USER#alice', 'USER#david', 'FOLLOWS#');
SELECT * FROM common_neighbors('graph', 'USER#charlie', 'USER#david', 'LIKES#');
SELECT * FROM common_neighbors('graph', 'POST#777', 'POST#12345', 'LIKES#', 'in');

-- ranked walks
SELECT * FROM people_you_may_know('graph', 'USER#alice');
SELECT * FROM people_you_may_know('graph', 'USER#erin');
SELECT * FROM also_liked('graph', 'USER#alice');
SELECT * FROM related_items('graph', 'POST#777');
SELECT * FROM walk_ranked('graph', 'USER#alice', ARRAY['FRIEND#'], ARRAY['out']);

-- pictures
SELECT to_dot('graph', 'USER#bob', 'FOLLOWS#');
SELECT to_mermaid('graph', 'USER#alice', 'FRIEND#', 2, 'out');

-- query: DynamoDB's Query on the table and on the index
SELECT partition_key, sort_key, key FROM query('graph', 'USER#alice');
SELECT sort_key FROM query('graph', 'USER#alice', 'begins_with', 'FOLLOWS#');
SELECT sort_key FROM query('graph', 'USER#alice', '=', 'PROFILE');
SELECT sort_key FROM query('graph', 'USER#alice', '<', 'FRIEND#');
SELECT sort_key FROM query('graph', 'USER#alice', '<=', 'FRIEND#USER#bob');
SELECT sort_key FROM query('graph', 'USER#alice', '>', 'LIKES#POST#777');
SELECT sort_key FROM query('graph', 'USER#alice', '>=', 'LIKES#POST#777');
SELECT sort_key FROM query('graph', 'USER#alice', 'between', 'FOLLOWS#USER#david', 'FRIEND#USER#bob');
SELECT sort_key FROM query('graph', 'USER#alice', 'between', 'Z', 'A');
SELECT sort_key FROM query('graph', 'USER#alice', 'like', 'F%');
SELECT sort_key FROM query('graph', 'USER#alice', backward => true, lim => 2);
SELECT sort_key FROM query('graph', 'USER#alice', backward => true, lim => 2,
						   exclusive_start_key => '{"pk": "USER#alice", "sk": "LIKES#POST#777"}');
SELECT sort_key, key FROM query('graph_inverted', 'FOLLOWS#USER#bob', lim => 2);
SELECT sort_key, item FROM query('graph_inverted', 'FOLLOWS#USER#bob',
						   exclusive_start_key => '{"sk": "FOLLOWS#USER#bob", "pk": "USER#alice"}');
SELECT sort_key FROM query('graph_inverted', 'FOLLOWS#USER#bob', exclusive_start_key => '{"x": 1}');
SELECT query_count('graph', 'USER#alice') AS all_items,
	   query_count('graph', 'USER#alice', 'begins_with', 'F') AS f_items,
	   query_count('graph_inverted', 'LIKES#POST#777') AS likes_of_777;
-- begins_with with multi-byte prefixes, ordered by UTF-8 bytes
INSERT INTO graph VALUES ('TAG#x', 'é#1', NULL), ('TAG#x', 'é#2', NULL), ('TAG#x', 'ê', NULL),
	('TAG#x', 'z', NULL), ('TAG#x', '中', NULL);
SELECT sort_key FROM query('graph', 'TAG#x');
SELECT sort_key FROM query('graph', 'TAG#x', 'begins_with', 'é');

-- NULLs
SELECT count(*) FROM neighbors('graph', NULL, 'FRIEND#');
SELECT count(*) FROM traverse('graph', 'USER#alice', NULL);
SELECT shortest_path('graph', 'USER#alice', NULL, 'FRIEND#');

-- a table that is not an adjacency list
CREATE TABLE not_graph (id int PRIMARY KEY, name text);
SELECT * FROM neighbors('not_graph', 'USER#alice', 'FRIEND#');
CREATE TABLE one_key (pk adjkey PRIMARY KEY);
SELECT * FROM neighbors('one_key', 'USER#alice', 'FRIEND#');

-- where a prefix's range ends: a forward scan stops at the first sort key
-- without the prefix; keys just past it, and a node key ending in the
-- largest character (no successor in its last place)
CREATE TABLE pfx (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO pfx VALUES ('A', 'E}z', NULL), ('A', 'E~a', NULL), ('A', 'E~~', NULL),
	('A', 'E~' || U&'\+10FFFF', NULL), ('A', 'F', NULL), ('A', 'E/x', NULL), ('A', 'E0', NULL),
	('A', 'E/', NULL), ('M', 'E~Z' || U&'\+10FFFF', NULL), ('M', 'E~Z' || U&'\+10FFFF' || 'a', NULL),
	('M', 'E~Z' || U&'\+10FFFF' || U&'\+10FFFF', NULL), ('M', 'E~[', NULL);
SELECT encode(convert_to(node::text, 'UTF8'), 'hex') AS node_hex, depth
FROM traverse('pfx', 'A', 'E~', 1) ORDER BY node;
SELECT node, depth FROM traverse('pfx', 'A', 'E/', 1) ORDER BY node;
SELECT reachable_count('pfx', 'A', 'E~', 1) AS tilde, reachable_count('pfx', 'A', 'E/', 1) AS slash,
	   reachable_count('pfx', 'A', '', 1, sk_is_target => true) AS every_sk;
SELECT has_edge('pfx', 'M', ('Z' || U&'\+10FFFF')::adjkey, 'E~') AS max_char,
	   has_edge('pfx', 'M', ('Z' || U&'\+10FFFF' || 'a')::adjkey, 'E~') AS max_char_a,
	   has_edge('pfx', 'M', ('Z' || U&'\+10FFFF' || 'b')::adjkey, 'E~') AS max_char_b,
	   has_edge('pfx', 'M', 'Z', 'E~') AS shorter;
SELECT encode(convert_to(neighbor::text, 'UTF8'), 'hex') AS neighbor_hex
FROM neighbors('pfx', 'M', 'E~') ORDER BY neighbor;
SELECT encode(convert_to(node::text, 'UTF8'), 'hex') AS node_hex
FROM traverse('pfx', 'M', 'E~', 1) ORDER BY node;

-- node keys that are byte prefixes of each other, in sets that grow
-- (K<g> -> K<2g>, K<2g+1>: K1, K10, K100 ... are distinct nodes)
CREATE TABLE bin (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO bin SELECT 'K' || g, 'E#K' || (2 * g + b), NULL
FROM generate_series(1, 1023) g, generate_series(0, 1) b;
ANALYZE bin;	-- counted: big levels of reachable_count read by one pass
SELECT depth, count(*) FROM traverse('bin', 'K1', 'E#', 11) GROUP BY depth ORDER BY depth;
SELECT reachable_count('bin', 'K1', 'E#', 10) AS k1, reachable_count('bin', 'K10', 'E#', 3) AS k10,
	   reachable_count('bin', 'K1', 'E#', 8) AS k1_8, reachable_count('bin', 'K3', 'E#', 9) AS k3_9;
SELECT node, score FROM walk_ranked('bin', 'K2', '{E#,E#,E#}', '{out,out,out}') ORDER BY node LIMIT 3;
SELECT count(*), sum(score) FROM walk_ranked('bin', 'K1', '{E#,E#,E#}', '{out,out,out}');
SELECT path FROM traverse('bin', 'K1', 'E#', 3, with_path => true) WHERE node = 'K10';
