-- The adjlist demo: the classic adjacency-list examples in one table,
-- queried the DynamoDB way.  Run by test/demo.sh; every query here is also
-- in README.md.
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;

CREATE EXTENSION IF NOT EXISTS adjlist;
DROP TABLE IF EXISTS graph;

-- One table holds nodes and edges: the item collection of a node is all
-- rows with its pk; an edge's sk is the edge type followed by the target.
CREATE TABLE graph (
	pk   adjkey,
	sk   adjkey,
	data jsonb,
	PRIMARY KEY (pk, sk)
);

INSERT INTO graph VALUES
	-- users and their profiles
	('USER#alice',   'PROFILE', '{"name": "Alice Wonderland"}'),
	('USER#bob',     'PROFILE', '{"name": "Bob Builder"}'),
	('USER#charlie', 'PROFILE', '{"name": "Charlie Brown"}'),
	('USER#david',   'PROFILE', '{"name": "David Copperfield"}'),
	-- friendships (both directions are stored, as in DynamoDB)
	('USER#alice',   'FRIEND#USER#bob',     '{"since": "2019-05-01"}'),
	('USER#bob',     'FRIEND#USER#alice',   '{"since": "2019-05-01"}'),
	('USER#alice',   'FRIEND#USER#charlie', '{"since": "2020-02-14"}'),
	('USER#charlie', 'FRIEND#USER#alice',   '{"since": "2020-02-14"}'),
	('USER#bob',     'FRIEND#USER#david',   '{"since": "2021-07-04"}'),
	('USER#david',   'FRIEND#USER#bob',     '{"since": "2021-07-04"}'),
	-- follows (one direction)
	('USER#alice',   'FOLLOWS#USER#bob',     '{"since": "2023-01-15"}'),
	('USER#alice',   'FOLLOWS#USER#david',   '{"since": "2023-03-02"}'),
	('USER#charlie', 'FOLLOWS#USER#bob',     '{"since": "2023-02-20"}'),
	('USER#david',   'FOLLOWS#USER#bob',     '{"since": "2023-06-30"}'),
	('USER#bob',     'FOLLOWS#USER#charlie', '{"since": "2023-04-11"}'),
	-- posts and likes
	('POST#12345',   'POST', '{"title": "Tea parties", "author": "USER#alice"}'),
	('POST#777',     'POST', '{"title": "How to build anything", "author": "USER#bob"}'),
	('USER#alice',   'LIKES#POST#777',   '{"at": "2023-04-01T10:00:00Z"}'),
	('USER#charlie', 'LIKES#POST#12345', '{"at": "2023-04-02T08:30:00Z"}'),
	('USER#charlie', 'LIKES#POST#777',   '{"at": "2023-04-03T19:45:00Z"}'),
	('USER#david',   'LIKES#POST#12345', '{"at": "2023-04-05T12:00:00Z"}'),
	-- posts and their tags
	('POST#31415',   'POST', '{"title": "Shelves in a weekend", "author": "USER#david"}'),
	('POST#777',     'TAGGED#TAG#diy',   NULL),
	('POST#777',     'TAGGED#TAG#howto', NULL),
	('POST#12345',   'TAGGED#TAG#howto', NULL),
	('POST#12345',   'TAGGED#TAG#tea',   NULL),
	('POST#31415',   'TAGGED#TAG#diy',   NULL),
	('POST#31415',   'TAGGED#TAG#howto', NULL),
	-- Middle-earth: who visited which place
	('USER#Frodo',   'PROFILE', '{"name": "Frodo Baggins"}'),
	('USER#Samwise', 'PROFILE', '{"name": "Samwise Gamgee"}'),
	('USER#Gandalf', 'PROFILE', '{"name": "Gandalf the Grey"}'),
	('USER#Frodo',   'VISITED#PLACE#Shire',     NULL),
	('USER#Frodo',   'VISITED#PLACE#Rivendell', NULL),
	('USER#Frodo',   'VISITED#PLACE#Mordor',    NULL),
	('USER#Frodo',   'VISITED#PLACE#Gondor',    NULL),
	('USER#Samwise', 'VISITED#PLACE#Shire',     NULL),
	('USER#Samwise', 'VISITED#PLACE#Rivendell', NULL),
	('USER#Samwise', 'VISITED#PLACE#Mordor',    NULL),
	('USER#Gandalf', 'VISITED#PLACE#Shire',     NULL),
	('USER#Gandalf', 'VISITED#PLACE#Rivendell', NULL),
	('USER#Gandalf', 'VISITED#PLACE#Gondor',    NULL),
	('USER#Gandalf', 'VISITED#PLACE#Rohan',     NULL),
	-- invoices and the bills they contain (a bill can be in several invoices)
	('INVOICE#92551', 'INVOICE#92551', '{"customer": "ACME", "date": "2023-05-01"}'),
	('INVOICE#92551', 'BILL#4224663',  '{"amount": 12.50}'),
	('INVOICE#92551', 'BILL#4224687',  '{"amount": 40.00}'),
	('INVOICE#92552', 'INVOICE#92552', '{"customer": "Initech", "date": "2023-05-03"}'),
	('INVOICE#92552', 'BILL#4224687',  '{"amount": 40.00}'),
	('INVOICE#92552', 'BILL#4224700',  '{"amount": 7.25}');

\echo
\echo '== Alice''s profile (a point lookup on (pk, sk))'
SELECT data->>'name' AS name FROM graph WHERE pk = 'USER#alice' AND sk = 'PROFILE';

\echo '== Alice''s friends (one range of the primary key: begins_with)'
SELECT sk FROM graph WHERE pk = 'USER#alice' AND sk ^@ 'FRIEND#' ORDER BY sk;

\echo '== Posts Alice likes'
SELECT key_part(sk, -1) AS post FROM graph WHERE pk = 'USER#alice' AND sk ^@ 'LIKES#POST#';

\echo '== Does Alice follow Bob? (edge existence)'
SELECT EXISTS (SELECT 1 FROM graph WHERE pk = 'USER#alice' AND sk = 'FOLLOWS#USER#bob') AS alice_follows_bob;

\echo '== Places Frodo visited'
SELECT key_part(sk, -1) AS place FROM graph WHERE pk = 'USER#Frodo' AND sk ^@ 'VISITED#' ORDER BY sk;

\echo '== All bills of invoice 92551'
SELECT sk AS bill, data->>'amount' AS amount FROM graph
WHERE pk = 'INVOICE#92551' AND sk ^@ 'BILL#' ORDER BY sk;

\echo '== The plan: pk equality and the prefix are one index range'
EXPLAIN (COSTS OFF) SELECT sk FROM graph WHERE pk = 'USER#alice' AND sk ^@ 'FRIEND#';

-- The flipped view: an inverted index (a DynamoDB GSI) whose partition key
-- is the base row's sk and whose sort key is its pk, kept in sync by
-- triggers in the same transaction.
SELECT create_inverted_index('graph');

\echo '== Who follows Bob? (one range of the inverted index)'
SELECT pk AS follower FROM graph_inverted WHERE sk = 'FOLLOWS#USER#bob' ORDER BY pk;

\echo '== Who visited Gondor?'
SELECT pk AS visitor FROM graph_inverted WHERE sk = 'VISITED#PLACE#Gondor' ORDER BY pk;

\echo '== All invoices containing bill 4224687'
SELECT pk AS invoice FROM graph_inverted WHERE sk = 'BILL#4224687' ORDER BY pk;

\echo '== Who likes post 777?'
SELECT pk AS fan FROM graph_inverted WHERE sk = 'LIKES#POST#777' ORDER BY pk;

\echo '== The index follows every write, transactionally'
INSERT INTO graph VALUES ('USER#Gandalf', 'FOLLOWS#USER#bob', NULL);
SELECT pk AS follower FROM graph_inverted WHERE sk = 'FOLLOWS#USER#bob' ORDER BY pk;
DELETE FROM graph WHERE pk = 'USER#Gandalf' AND sk = 'FOLLOWS#USER#bob';

\echo '== verify_inverted_index: no rows means the index is exact'
SELECT count(*) AS problems FROM verify_inverted_index('graph_inverted');

\echo '== Graph functions: Alice''s friends, with the edge data'
SELECT neighbor, data FROM neighbors('graph', 'USER#alice', 'FRIEND#');

\echo '== Bob''s followers, through the inverted index'
SELECT neighbor FROM reverse_neighbors('graph', 'USER#bob', 'FOLLOWS#');

\echo '== Degrees and edge existence'
SELECT degree('graph', 'USER#bob', 'FOLLOWS#', 'in') AS bob_followers,
       degree('graph', 'USER#alice', 'FOLLOWS#', 'out') AS alice_follows,
       has_edge('graph', 'USER#alice', 'USER#bob', 'FOLLOWS#') AS alice_follows_bob;

\echo '== Everyone within two friendships of Charlie, breadth first'
SELECT node, depth, path FROM traverse('graph', 'USER#charlie', 'FRIEND#', 2, with_path => true);

\echo '== The shortest chain of friends from Charlie to David'
SELECT shortest_path('graph', 'USER#charlie', 'USER#david', 'FRIEND#');

\echo '== Mutual friends of Alice and David'
SELECT * FROM common_neighbors('graph', 'USER#alice', 'USER#david', 'FRIEND#');

\echo '== People Alice may know (friends of friends, by mutual friends)'
SELECT * FROM people_you_may_know('graph', 'USER#alice');

\echo '== Users who liked what Alice liked also liked'
SELECT * FROM also_liked('graph', 'USER#alice');

\echo '== Posts related to post 777, by the tags they share'
SELECT * FROM related_items('graph', 'POST#777');

\echo '== Places visited by people who visited a place Frodo visited'
SELECT * FROM walk_ranked('graph', 'USER#Frodo', ARRAY['VISITED#', 'VISITED#', 'VISITED#'],
                          ARRAY['out', 'in', 'out']);

\echo '== DynamoDB Query: a page of Alice''s item collection, then the next one'
SELECT sort_key, key FROM query('graph', 'USER#alice', lim => 3);
SELECT sort_key FROM query('graph', 'USER#alice', lim => 3,
                           exclusive_start_key => '{"pk": "USER#alice", "sk": "FOLLOWS#USER#david"}');

\echo '== Bob''s neighbourhood as a Mermaid flowchart (paste into any Mermaid viewer)'
\pset format unaligned
\pset tuples_only on
SELECT to_mermaid('graph', 'USER#bob', 'FOLLOWS#');
\echo '== ... and as Graphviz DOT (pipe into dot -Tpng)'
SELECT to_dot('graph', 'USER#bob', 'FOLLOWS#');
