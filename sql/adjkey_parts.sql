--
-- key components: make_key, key_parts, key_part, key_prefix, key_nparts
--

-- building a key escapes the separator inside a part
SELECT make_key('USER', 'alice');
SELECT make_key('FOLLOWS', 'USER', 'bob');
SELECT make_key('USER', 'a#b');			-- a # in a user id cannot add a part
SELECT make_key('PATH', 'C:\dir');		-- and a backslash is escaped too
SELECT make_key('USER', '');			-- an empty part is kept
SELECT make_key(VARIADIC ARRAY['INVOICE', '92551']);
SELECT key_nparts(make_key('USER', 'a#b')), key_parts(make_key('USER', 'a#b'));
SELECT key_parts(make_key('PATH', 'C:\dir', 'x#y\#z'));

-- round trip: parts of a built key are the parts it was built from
SELECT bool_and(key_parts(make_key(VARIADIC p)) = p) AS round_trip
FROM (VALUES (ARRAY['a']), (ARRAY['a', 'b']), (ARRAY['#', '\', '\#', '#\']),
			 (ARRAY['', 'x', '']), (ARRAY['中#文', '😀\'])) v(p);

-- errors: no parts, a NULL part, a key that would be empty or too long
SELECT make_key(VARIADIC ARRAY[]::text[]);
SELECT make_key('USER', NULL);
SELECT make_key('');
SELECT make_key('USER', repeat('x', 2044));

-- splitting hand-written keys
SELECT key_parts('USER#alice'), key_parts('FOLLOWS#USER#bob'), key_parts('PROFILE');
SELECT key_parts('#a##b#');
SELECT key_parts('a\b#c');				-- a lone backslash is an ordinary character
SELECT key_parts('a\');

-- the n-th part: 1-based, negative from the end, NULL out of range
SELECT key_part('FOLLOWS#USER#bob', 1) AS p1, key_part('FOLLOWS#USER#bob', 3) AS p3,
	   key_part('FOLLOWS#USER#bob', -1) AS last, key_part('FOLLOWS#USER#bob', -3) AS first,
	   key_part('FOLLOWS#USER#bob', 4) AS p4, key_part('FOLLOWS#USER#bob', -4) AS m4;
SELECT key_part(make_key('USER', 'a#b'), 2);
SELECT key_part('A#B', 0);

-- the first n parts (a key); negative n drops the last parts
SELECT key_prefix('FOLLOWS#USER#bob', 1) AS n1, key_prefix('FOLLOWS#USER#bob', 2) AS n2,
	   key_prefix('FOLLOWS#USER#bob', 3) AS n3, key_prefix('FOLLOWS#USER#bob', 9) AS n9,
	   key_prefix('FOLLOWS#USER#bob', -1) AS m1, key_prefix('FOLLOWS#USER#bob', -3) AS m3;
SELECT key_prefix(make_key('USER', 'a#b', 'c'), 2);
SELECT key_prefix('#x', 1);
SELECT key_prefix('A#B', 0);
SELECT pg_typeof(key_prefix('A#B', 1));
