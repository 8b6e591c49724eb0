/*
 * adjlist from JDBC (pgjdbc from the Debian package libpostgresql-jdbc-java).
 *
 *   java -cp /usr/share/java/postgresql.jar test/client/JdbcTest.java test/client/edges.tsv
 *
 * Connects over TCP to PGHOST (127.0.0.1 when PGHOST is a socket directory;
 * JDBC_HOST overrides), PGPORT, PGUSER, PGDATABASE, with prepareThreshold=1
 * (server-side prepared statements from the first execution) and
 * stringtype=unspecified (setString parameters are untyped and resolve to
 * adjkey).  Exits 0 when every check passes; otherwise prints "FAIL: ..."
 * and exits 1.  The checks are the same in every client of test/client
 * (see run.sh).
 */
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.util.PGBinaryObject;
import org.postgresql.util.PGobject;

public class JdbcTest {
    static final String TBL = "jdbc_graph";
    static final String START = "USER#alice";
    static final String PREFIX = "FOLLOWS#";
    static final String TARGET = "USER#中文";
    static final int LIM = 4;

    static class Fail extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Fail(String msg) { super(msg); }
    }

    record Edge(String pk, String sk, String data) {}

    static Connection conn;
    static List<Edge> edges = new ArrayList<>();
    static int nchecks = 0;
    static Map<String, String> jsonCache = new HashMap<>();

    static void check(boolean cond, String msg) {
        if (!cond)
            throw new Fail(msg);
    }

    static void ok(String what) {
        nchecks++;
        System.out.println("ok " + nchecks + " - " + what);
    }

    static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    /* adjkey order: the UTF-8 bytes, unsigned */
    static int byBytes(String a, String b) { return Arrays.compareUnsigned(utf8(a), utf8(b)); }

    static byte[] binkey(String s) {
        byte[] u = utf8(s);
        byte[] r = new byte[u.length + 1];
        r[0] = 1;
        System.arraycopy(u, 0, r, 1, u.length);
        return r;
    }

    static void exec(String sql) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute(sql);
        }
    }

    static List<List<String>> rows(PreparedStatement ps) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++)
                    row.add(rs.getString(i));
                out.add(row);
            }
        }
        return out;
    }

    static List<List<String>> rows(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++)
                ps.setObject(i + 1, params[i]);
            return rows(ps);
        }
    }

    /* jsonb's text form of a JSON document, as the server prints it */
    static String normJson(String j) throws SQLException {
        if (j == null)
            return null;
        if (!jsonCache.containsKey(j))
            jsonCache.put(j, rows("SELECT CAST(? AS jsonb)::text", j).get(0).get(0));
        return jsonCache.get(j);
    }

    static void readEdges(String path) throws Exception {
        for (String line : Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8)) {
            if (line.isEmpty())
                continue;
            String[] f = line.split("\t", -1);
            check(f.length == 3, path + ": bad line " + line);
            edges.add(new Edge(f[0], f[1], f[2].isEmpty() ? null : f[2]));
        }
        check(edges.size() >= 24, path + ": only " + edges.size() + " edges");
        edges.sort((x, y) -> {
            int c = byBytes(x.pk(), y.pk());
            return c != 0 ? c : byBytes(x.sk(), y.sk());
        });
    }

    static List<Edge> expectedOut(String node, String prefix) {
        List<Edge> r = new ArrayList<>();
        for (Edge e : edges)
            if (e.pk().equals(node) && e.sk().startsWith(prefix))
                r.add(e);
        return r;
    }

    static List<String> expectedIn(String node, String prefix) {
        List<String> r = new ArrayList<>();
        for (Edge e : edges)
            if (e.sk().equals(prefix + node))
                r.add(e.pk());
        r.sort(JdbcTest::byBytes);
        return r;
    }

    static Map<String, Integer> expectedBfs(String start, String prefix, int maxDepth, boolean reverse) {
        Map<String, List<String>> adj = new HashMap<>();
        for (Edge e : edges) {
            if (!e.sk().startsWith(prefix))
                continue;
            String t = e.sk().substring(prefix.length());
            String from = reverse ? t : e.pk(), to = reverse ? e.pk() : t;
            adj.computeIfAbsent(from, k -> new ArrayList<>()).add(to);
        }
        Map<String, Integer> depth = new LinkedHashMap<>();
        depth.put(start, 0);
        ArrayDeque<String> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            String u = queue.poll();
            int d = depth.get(u);
            if (d == maxDepth)
                continue;
            for (String v : adj.getOrDefault(u, List.of()))
                if (!depth.containsKey(v)) {
                    depth.put(v, d + 1);
                    queue.add(v);
                }
        }
        depth.remove(start);
        return depth;
    }

    /* the server-side name, plan counts and parameter types of the statement whose text contains marker */
    static String[] serverStatement(Connection c, String marker) throws SQLException {
        List<List<String>> r;
        try (PreparedStatement ps = c.prepareStatement(
                 "SELECT name, generic_plans::text, custom_plans::text, parameter_types::text "
                 + "FROM pg_prepared_statements WHERE statement LIKE '%' || ? || '%' AND NOT from_sql")) {
            ps.setObject(1, marker, Types.OTHER);
            r = rows(ps);
        }
        check(r.size() == 1, "expected one server-side prepared statement containing " + marker
              + ", found " + r);
        return r.get(0).toArray(new String[0]);
    }

    static String[] serverStatement(String marker) throws SQLException {
        return serverStatement(conn, marker);
    }

    /*
     * The generic plan of the server-side statement whose text contains
     * marker, executed on c under force_generic_plan (no custom plan): its
     * parameter types, and EXPLAIN EXECUTE name(args) has a line with
     * indexCond, no Seq Scan, no Filter, and no Sort when sorted.
     */
    static void checkGenericIndex(Connection c, String marker, String args, String types, String indexCond,
                                  boolean sorted) throws SQLException {
        String[] st = serverStatement(c, marker);
        check(st[3].equals(types), st[0] + ": parameters typed " + st[3] + ", expected " + types);
        check(!st[1].equals("0") && st[2].equals("0"), st[0] + ": " + st[1] + " generic, " + st[2] + " custom plans");
        List<String> plan = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("EXPLAIN (COSTS OFF) EXECUTE \"" + st[0] + "\"(" + args + ")")) {
            while (rs.next())
                plan.add(rs.getString(1));
        }
        List<String> bad = new ArrayList<>(List.of("Seq Scan", "Filter:"));
        if (sorted)
            bad.add("Sort");
        check(plan.stream().anyMatch(l -> l.contains(indexCond))
              && plan.stream().noneMatch(l -> bad.stream().anyMatch(l::contains)),
              "the generic plan of" + marker + "is not an index scan with " + indexCond + ":\n  "
              + String.join("\n  ", plan));
    }

    static void setup() throws SQLException {
        exec("SET client_min_messages = warning");
        exec("DROP TABLE IF EXISTS " + TBL + ", " + TBL + "_copy, " + TBL + "_bad CASCADE");
        exec("CREATE TABLE " + TBL + " (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))");
        rows("SELECT create_inverted_index(?::regclass)", TBL);
        // even rows: setString (untyped by stringtype=unspecified); odd rows: setObject(..., Types.OTHER)
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + TBL + " VALUES (?, ?, ?)")) {
            for (int i = 0; i < edges.size(); i++) {
                Edge e = edges.get(i);
                if (i % 2 == 0) {
                    ps.setString(1, e.pk());
                    ps.setString(2, e.sk());
                } else {
                    ps.setObject(1, e.pk(), Types.OTHER);
                    ps.setObject(2, e.sk(), Types.OTHER);
                }
                ps.setString(3, e.data());
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            check(counts.length == edges.size(), "batch insert: " + counts.length + " results");
        }
        exec("INSERT INTO " + TBL + " SELECT 'NODE#' || (i % 300), 'FOLLOWS#NODE#' || i, NULL "
             + "FROM generate_series(1, 3000) i");
        exec("ANALYZE " + TBL);
        exec("ANALYZE " + TBL + "_inverted");
        List<String> c = rows("SELECT (SELECT count(*) FROM " + TBL + " WHERE pk ^@ 'USER#'::text)::text, "
                              + "(SELECT count(*) FROM " + TBL + ")::text, (SELECT count(*) FROM " + TBL + "_inverted)::text, "
                              + "(SELECT count(*) FROM verify_inverted_index('" + TBL + "_inverted'))::text").get(0);
        check(Integer.parseInt(c.get(0)) == edges.size(), "table has " + c.get(0) + " edges, expected " + edges.size());
        check(c.get(1).equals(c.get(2)), "inverted index has " + c.get(2) + " rows, table " + c.get(1));
        check(c.get(3).equals("0"), "verify_inverted_index reports " + c.get(3) + " problems");
        ok("table, inverted index, edges batch-inserted with setString and setObject(Types.OTHER)");
    }

    static void checkText() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT pk, sk, data FROM " + TBL + " WHERE pk ^@ ?::text ORDER BY pk, sk")) {
            ps.setString(1, "USER#");
            try (ResultSet rs = ps.executeQuery()) {
                check(rs.getMetaData().getColumnTypeName(1).equals("adjkey"),
                      "pk column type " + rs.getMetaData().getColumnTypeName(1));
                int i = 0;
                while (rs.next()) {
                    check(i < edges.size(), "more rows than edges");
                    Edge e = edges.get(i);
                    check(rs.getString(1).equals(e.pk()) && rs.getString(2).equals(e.sk())
                          && Objects.equals(rs.getString(3), normJson(e.data())),
                          "row " + i + ": (" + rs.getString(1) + ", " + rs.getString(2) + "), expected " + e);
                    Object o = rs.getObject(2);
                    check(o instanceof PGobject && ((PGobject) o).getType().equals("adjkey")
                          && ((PGobject) o).getValue().equals(e.sk()),
                          "getObject of adjkey: " + o + " (" + (o == null ? null : o.getClass()) + ")");
                    i++;
                }
                check(i == edges.size(), i + " rows, expected " + edges.size());
            }
        }
        ok("text results in UTF-8 byte order; getObject gives a PGobject of type adjkey");

        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT adjkey_send(pk), adjkey_send(sk) FROM " + TBL + " WHERE pk ^@ ?::text ORDER BY pk, sk")) {
            ps.setString(1, "USER#");
            try (ResultSet rs = ps.executeQuery()) {
                for (int i = 0; rs.next(); i++) {
                    check(Arrays.equals(rs.getBytes(1), binkey(edges.get(i).pk()))
                          && Arrays.equals(rs.getBytes(2), binkey(edges.get(i).sk())),
                          "adjkey_send row " + i + ": " + Arrays.toString(rs.getBytes(2)));
                }
            }
        }
        ok("adjkey_send: version byte 1 + UTF-8 bytes");
    }

    static void checkPlan(String stmtName) throws SQLException {
        List<String> plan = new ArrayList<>();
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("EXPLAIN (COSTS OFF) EXECUTE \"" + stmtName + "\"('" + START + "', '"
                                            + PREFIX + "', '" + PREFIX + "', " + LIM + ")")) {
            while (rs.next())
                plan.add(rs.getString(1));
        }
        String shown = "\n  " + String.join("\n  ", plan);
        check(plan.stream().noneMatch(l -> l.contains("Seq Scan")), "generic plan is a sequential scan:" + shown);
        check(plan.stream().anyMatch(l -> l.contains("Index Cond:") && l.contains("(sk >= adjkey_prefix_lower($2))")
                                          && l.contains("(sk < adjkey_prefix_upper($2))")),
              "the generic plan has no Index Cond on sk with adjkey_prefix_lower/upper($2):" + shown);
    }

    static void checkPaging(String suffix, boolean forceGeneric) throws SQLException {
        List<Edge> want = expectedOut(START, PREFIX);
        String nbAlias = "nb_page" + suffix, sqAlias = "sql_page" + suffix;
        if (forceGeneric)
            exec("SET plan_cache_mode = force_generic_plan");

        List<List<String>> full = rows("SELECT neighbor, sk, data FROM neighbors(?::regclass, ?, ?)", TBL, START, PREFIX);
        check(full.size() == want.size(), "neighbors: " + full.size() + " rows, expected " + want.size());
        for (int i = 0; i < want.size(); i++) {
            Edge e = want.get(i);
            check(full.get(i).equals(Arrays.asList(e.sk().substring(PREFIX.length()), e.sk(), normJson(e.data()))),
                  "neighbors row " + i + ": " + full.get(i) + ", expected " + e);
        }

        // neighbors() paginated by one PreparedStatement (server-prepared from the first execution)
        List<List<String>> pages = new ArrayList<>();
        int execs = 0;
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT neighbor, sk, data FROM neighbors('" + TBL + "', ?, ?, lim => ?, after => ?) " + nbAlias)) {
            String after = null;
            for (;;) {
                ps.setString(1, START);
                ps.setString(2, PREFIX);
                ps.setLong(3, LIM);
                ps.setString(4, after);
                List<List<String>> r = rows(ps);
                execs++;
                check(r.size() <= LIM, "page of " + r.size() + " rows with lim " + LIM);
                if (r.isEmpty())
                    break;
                pages.addAll(r);
                after = r.get(r.size() - 1).get(1);
                check(execs < 100, "neighbors paging does not end");
            }
            check(pages.equals(full), "neighbors pages differ from one call: " + pages);
            check(execs >= 6, "only " + execs + " executions");
            String[] s = serverStatement(" " + nbAlias);
            check(Long.parseLong(s[1]) >= 1, nbAlias + " (" + s[0] + "): no generic plan after " + execs
                  + " executions (custom " + s[2] + ")");
            check(!forceGeneric || s[2].equals("0"), s[0] + ": " + s[2] + " custom plans under force_generic_plan");
            ok("neighbors() paged by a PreparedStatement (server-side " + s[0] + "): " + execs + " executions, "
               + s[1] + " generic plans, equals one call");
        }

        // plain SQL; its generic plan must keep the index range
        List<String> got = new ArrayList<>();
        execs = 0;
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT sk FROM " + TBL + " " + sqAlias + " WHERE pk = ? AND sk ^@ ?::text AND sk > ? ORDER BY sk LIMIT ?")) {
            String after = PREFIX; // no key equals the bare prefix
            for (;;) {
                ps.setString(1, START);
                ps.setString(2, PREFIX);
                ps.setString(3, after);
                ps.setLong(4, LIM);
                List<List<String>> r = rows(ps);
                execs++;
                for (List<String> row : r)
                    got.add(row.get(0));
                if (r.size() < LIM)
                    break;
                after = r.get(r.size() - 1).get(0);
            }
            List<String> wantSk = new ArrayList<>();
            for (Edge e : want)
                wantSk.add(e.sk());
            check(got.equals(wantSk), "sql pages: " + got);
            check(execs >= 6, "only " + execs + " executions");
            String[] s = serverStatement(" " + sqAlias + " ");
            check(Long.parseLong(s[1]) >= 1, sqAlias + " (" + s[0] + "): no generic plan after " + execs
                  + " executions (custom " + s[2] + ")");
            check(!forceGeneric || s[2].equals("0"), s[0] + ": " + s[2] + " custom plans under force_generic_plan");
            checkPlan(s[0]);
            if (forceGeneric)
                check(serverStatement(" " + sqAlias + " ")[2].equals("0"), s[0] + ": EXPLAIN used a custom plan");
            ok("SQL paged by a PreparedStatement (server-side " + s[0] + ", "
               + (forceGeneric ? "force_generic_plan" : "auto") + "): " + execs
               + " executions, generic plan has Index Cond with adjkey_prefix_lower/upper");
        }
        if (forceGeneric)
            exec("RESET plan_cache_mode");
    }

    static void checkReverse() throws SQLException {
        List<String> want = expectedIn(TARGET, PREFIX);
        check(want.size() >= 5, "too few in-edges in the edge list");
        List<List<String>> r = rows("SELECT neighbor, pk, sk FROM reverse_neighbors(?::regclass, ?, ?)", TBL, TARGET, PREFIX);
        check(r.size() == want.size(), "reverse_neighbors: " + r + ", expected " + want);
        for (int i = 0; i < want.size(); i++)
            check(r.get(i).equals(Arrays.asList(want.get(i), want.get(i), PREFIX + TARGET)),
                  "reverse_neighbors row " + i + ": " + r.get(i) + ", expected " + want.get(i));
        List<String> got = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT neighbor FROM reverse_neighbors('" + TBL + "', ?, ?, lim => 2, after => ?)")) {
            String after = null;
            for (int i = 0; i < 100; i++) {
                ps.setString(1, TARGET);
                ps.setString(2, PREFIX);
                ps.setString(3, after);
                List<List<String>> page = rows(ps);
                if (page.isEmpty())
                    break;
                for (List<String> row : page)
                    got.add(row.get(0));
                after = got.get(got.size() - 1);
            }
        }
        check(got.equals(want), "reverse pages: " + got);
        ok("reverse_neighbors of " + TARGET + ": sources in byte order, paged equals one call");
    }

    static void checkTraverse(String start, String direction, boolean reverse) throws SQLException {
        Map<String, Integer> want = expectedBfs(start, PREFIX, 2, reverse);
        List<List<String>> r = rows("SELECT node, depth::text FROM traverse(?::regclass, ?, ?, 2, ?)",
                                    TBL, start, PREFIX, direction);
        check(r.size() == want.size(), "traverse(" + start + ", 2, " + direction + "): " + r.size()
              + " nodes, expected " + want.size());
        for (List<String> row : r)
            check(Objects.equals(want.get(row.get(0)), Integer.valueOf(row.get(1))),
                  "traverse: " + row.get(0) + " at depth " + row.get(1) + ", expected " + want.get(row.get(0)));
        ok("traverse(" + start + ", depth 2, " + direction + "): " + want.size() + " nodes with their depths");
    }

    static List<byte[][]> parseBinaryCopy(byte[] data) {
        byte[] sig = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);
        check(Arrays.equals(Arrays.copyOf(data, 11), sig), "binary COPY: bad signature");
        ByteBuffer buf = ByteBuffer.wrap(data);
        buf.position(15);
        buf.position(19 + buf.getInt());
        List<byte[][]> tuples = new ArrayList<>();
        for (;;) {
            short nf = buf.getShort();
            if (nf == -1)
                break;
            byte[][] fields = new byte[nf][];
            for (int i = 0; i < nf; i++) {
                int fl = buf.getInt();
                if (fl >= 0) {
                    fields[i] = new byte[fl];
                    buf.get(fields[i]);
                }
            }
            tuples.add(fields);
        }
        check(!buf.hasRemaining(), "binary COPY: " + buf.remaining() + " trailing bytes");
        return tuples;
    }

    static void checkCopy() throws Exception {
        CopyManager cm = conn.unwrap(PGConnection.class).getCopyAPI();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = cm.copyOut("COPY (SELECT pk, sk, data FROM " + TBL + " WHERE pk ^@ 'USER#'::text ORDER BY pk, sk) "
                            + "TO STDOUT (FORMAT binary)", out);
        byte[] data = out.toByteArray();
        check(n == edges.size(), "COPY TO STDOUT: " + n + " rows");
        List<byte[][]> tuples = parseBinaryCopy(data);
        check(tuples.size() == edges.size(), "binary COPY: " + tuples.size() + " rows, expected " + edges.size());
        for (int i = 0; i < tuples.size(); i++) {
            byte[][] t = tuples.get(i);
            check(t.length == 3, "binary COPY row " + i + ": " + t.length + " fields");
            check(Arrays.equals(t[0], binkey(edges.get(i).pk())) && Arrays.equals(t[1], binkey(edges.get(i).sk())),
                  "binary COPY row " + i + ": keys are not version byte 1 + UTF-8 of " + edges.get(i));
        }
        ok("COPY TO STDOUT (FORMAT binary) via CopyManager: version byte 1 + UTF-8 bytes in every key");

        exec("CREATE TABLE " + TBL + "_copy (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))");
        n = cm.copyIn("COPY " + TBL + "_copy FROM STDIN (FORMAT binary)", new ByteArrayInputStream(data), 97);
        check(n == edges.size(), "COPY FROM STDIN: " + n + " rows");
        List<String> c = rows("SELECT (SELECT count(*) FROM " + TBL + "_copy)::text, "
                              + "(SELECT count(*) FROM (SELECT pk, sk, data FROM " + TBL + " WHERE pk ^@ 'USER#'::text "
                              + " EXCEPT SELECT pk, sk, data FROM " + TBL + "_copy) d)::text, "
                              + "(SELECT count(*) FROM (SELECT pk, sk, data FROM " + TBL + "_copy "
                              + " EXCEPT SELECT pk, sk, data FROM " + TBL + ") d)::text").get(0);
        check(c.equals(Arrays.asList(String.valueOf(edges.size()), "0", "0")),
              "binary COPY round trip differs: " + c.get(0) + " rows, " + c.get(1) + " missing, " + c.get(2) + " extra");
        ok("COPY FROM STDIN (FORMAT binary) via CopyManager into another table: same rows");

        byte[] bad = data.clone();
        bad[19 + 2 + 4] = 2; // the version byte of the first key
        exec("CREATE TABLE " + TBL + "_bad (pk adjkey, sk adjkey, data jsonb)");
        String state = null;
        try {
            cm.copyIn("COPY " + TBL + "_bad FROM STDIN (FORMAT binary)", new ByteArrayInputStream(bad));
        } catch (SQLException e) {
            state = e.getSQLState();
        }
        check("22P03".equals(state), "binary COPY with version 2: " + (state == null ? "accepted" : state) + ", expected 22P03");
        check(rows("SELECT count(*)::text FROM " + TBL + "_bad").get(0).get(0).equals("0"), "failed binary COPY wrote rows");
        ok("binary COPY with an unknown version byte: 22P03, nothing written");
    }

    /* --- parameters, arrays of keys, query() paging, binary transfer --- */

    /* adjkey as a PGobject that pgjdbc reads and writes in binary: version byte 1 and the UTF-8 bytes */
    public static class AdjKey extends PGobject implements PGBinaryObject {
        private static final long serialVersionUID = 1L;

        public AdjKey() { setType("adjkey"); }

        public AdjKey(String key) { this(); value = key; }

        protected byte version() { return 1; }

        @Override
        public void setByteValue(byte[] b, int off) throws SQLException {
            if (b[off] != 1)
                throw new SQLException("unknown adjkey binary format version " + b[off], "22P03");
            value = new String(b, off + 1, b.length - off - 1, StandardCharsets.UTF_8);
        }

        @Override
        public int lengthInBytes() { return utf8(value).length + 1; }

        @Override
        public void toBytes(byte[] out, int off) {
            byte[] u = utf8(value);
            out[off] = version();
            System.arraycopy(u, 0, out, off + 1, u.length);
        }
    }

    /* sends version byte 2: the server must refuse it, which shows that AdjKey goes in binary */
    public static class BadAdjKey extends AdjKey {
        private static final long serialVersionUID = 1L;

        public BadAdjKey(String key) { super(key); }

        @Override
        protected byte version() { return 2; }
    }

    static final String[] PATH_TARGETS = {"USER#{x,y}", "NULL", "USER#back\\slash", "USER#a b", "USER#zoë", "USER#deeper"};

    static String sqlState(Connection c, String sql, Object... params) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++)
                ps.setObject(i + 1, params[i]);
            ps.executeQuery().close();
            return null;
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    /* adjkey[] from getArray(): pgjdbc gives PGobject elements, whose toString() is the key */
    static String[] keys(java.sql.Array a) throws SQLException {
        return a == null ? null : Arrays.stream((Object[]) a.getArray()).map(o -> o == null ? null : o.toString())
            .toArray(String[]::new);
    }

    static java.util.Set<String> arcs(String prefix) {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (Edge e : edges)
            if (e.sk().startsWith(prefix))
                out.add(e.pk() + "\0" + e.sk().substring(prefix.length()));
        return out;
    }

    static void checkPath(String[] path, String start, String end, int depth, java.util.Set<String> arcSet, String what) {
        check(path != null && path.length == depth + 1 && path[0].equals(start) && path[depth].equals(end),
              what + ": " + Arrays.toString(path) + ", expected " + depth + " hops from " + start + " to " + end);
        for (int i = 1; i < path.length; i++)
            check(arcSet.contains(path[i - 1] + "\0" + path[i]), what + ": no edge " + path[i - 1] + " -> " + path[i]);
    }

    static List<String> firstColumn(List<List<String>> rows) {
        List<String> out = new ArrayList<>();
        for (List<String> r : rows)
            out.add(r.get(0));
        return out;
    }

    /*
     * Keys as parameters.  With stringtype=unspecified setString is untyped
     * and becomes an adjkey.  Without it, setString sends varchar, which is
     * compared with the keys as text (adjkey = text): the same rows, and a
     * generic plan with the same index range.  A graph function's adjkey
     * argument still needs ?::adjkey there (42883 without: a function
     * argument is converted only by an implicit cast).
     */
    static void checkParams(String url) throws SQLException {
        List<String> want = new ArrayList<>();
        for (Edge e : expectedOut(START, PREFIX))
            want.add(e.sk());
        for (String sql : new String[] {"SELECT sk FROM " + TBL + " WHERE pk = ? AND sk ^@ ? ORDER BY sk",
                                        "SELECT sk FROM " + TBL + " WHERE pk = ?::adjkey AND sk ^@ ?::text ORDER BY sk"}) {
            List<String> got = firstColumn(rows(sql, START, PREFIX));
            check(got.equals(want), sql + ": " + got);
        }
        // without stringtype=unspecified, setString sends varchar
        try (Connection plain = DriverManager.getConnection(url.replace("&stringtype=unspecified", ""),
                                                            env("PGUSER", System.getProperty("user.name")), env("PGPASSWORD", ""))) {
            try (Statement st = plain.createStatement()) {
                st.execute("SET plan_cache_mode = force_generic_plan");
            }
            try (PreparedStatement ps = plain.prepareStatement(
                     "SELECT sk FROM " + TBL + " out_varchar WHERE pk = ? AND sk ^@ ? ORDER BY sk")) {
                for (int i = 0; i < 2; i++) {
                    ps.setString(1, START);
                    ps.setString(2, PREFIX);
                    List<String> got = firstColumn(rows(ps));
                    check(got.equals(want), "pk = ? AND sk ^@ ? with setString (varchar): " + got);
                }
                checkGenericIndex(plain, " out_varchar WHERE pk = $1 ", "'" + START + "', '" + PREFIX + "'",
                                  "{\"character varying\",\"character varying\"}",
                                  "Index Cond: ((pk = ($1)::text) AND (sk >= adjkey_prefix_lower(($2)::text)) "
                                  + "AND (sk < adjkey_prefix_upper(($2)::text)))", true);
            }
            String nb = "SELECT sk FROM neighbors('" + TBL + "', ?, ?)";
            check("42883".equals(sqlState(plain, nb, START, PREFIX)), "neighbors() accepted a varchar node");
            try (PreparedStatement ps = plain.prepareStatement(nb.replace("', ?", "', ?::adjkey"))) {
                ps.setString(1, START);
                ps.setString(2, PREFIX);
                check(firstColumn(rows(ps)).equals(want), "neighbors(tbl, ?::adjkey, ?) with setString (varchar)");
            }
            try (PreparedStatement ps = plain.prepareStatement("SELECT count(*) FROM " + TBL + " WHERE pk = ?")) {
                ps.setObject(1, START, Types.OTHER);
                check(rows(ps).get(0).get(0).equals(String.valueOf(expectedOut(START, "").size())),
                      "setObject(key, Types.OTHER): wrong count");
            }
        }
        ok("setString with stringtype=unspecified, with and without casts; default stringtype (varchar): the same rows, "
           + "generic plan has Index Cond ((pk = ($1)::text) AND (sk >= adjkey_prefix_lower(($2)::text)) ...), "
           + "neighbors() needs ?::adjkey (42883 without); setObject(key, Types.OTHER) works");
    }

    static void checkArrays() throws SQLException {
        String[] keys = {"USER#alice", "USER#o\"neil", TARGET, "USER#nobody"};
        List<List<String>> want = new ArrayList<>();
        for (Edge e : edges)
            if (Arrays.asList(keys).contains(e.pk()) && e.sk().equals("PROFILE"))
                want.add(Arrays.asList(e.pk(), normJson(e.data())));
        check(want.size() == 2, "edges.tsv has no PROFILE of USER#alice and USER#中文");
        String sql = "SELECT pk, data FROM " + TBL + " %s WHERE pk = ANY(?) AND sk = 'PROFILE' ORDER BY pk";
        check(rows(String.format(sql, "profiles_cast").replace("ANY(?)", "ANY(?::adjkey[])"),
                   conn.createArrayOf("text", keys)).equals(want),
              "= ANY(?::adjkey[]) with createArrayOf(\"text\")");
        exec("SET plan_cache_mode = force_generic_plan");
        for (String[] c : new String[][] {{"adjkey", "profiles", "{adjkey[]}"}, {"text", "profiles_text", "{text[]}"}}) {
            try (PreparedStatement ps = conn.prepareStatement(String.format(sql, c[1]))) {
                for (int i = 0; i < 2; i++) {
                    ps.setArray(1, conn.createArrayOf(c[0], keys));
                    check(rows(ps).equals(want), "= ANY(createArrayOf(\"" + c[0] + "\"))");
                }
                checkGenericIndex(conn, " " + c[1] + " WHERE pk = ANY($1) ", "'{USER#alice}'", c[2],
                                  "Index Cond: ((pk = ANY ($1)) AND (sk = 'PROFILE'::adjkey))", false);
            }
        }
        exec("RESET plan_cache_mode");
        ok("keys to = ANY(?) as createArrayOf(\"adjkey\"), createArrayOf(\"text\") and with ?::adjkey[]: the same rows; "
           + "generic plans, adjkey[] and text[], have Index Cond (pk = ANY ($1))");

        java.util.Set<String> out = arcs(PREFIX);
        Map<String, Integer> dist = expectedBfs(START, PREFIX, 6, false);
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT shortest_path(?::regclass, ?, ?, ?), shortest_path(?::regclass, ?, ?, ?)::text[]")) {
            for (String target : PATH_TARGETS) {
                for (int i = 0; i < 8; i += 4) {
                    ps.setString(i + 1, TBL);
                    ps.setString(i + 2, START);
                    ps.setString(i + 3, target);
                    ps.setString(i + 4, PREFIX);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    checkPath(keys(rs.getArray(1)), START, target, dist.get(target), out, "shortest_path to " + target);
                    String[] viaText = (String[]) rs.getArray(2).getArray();
                    check(Arrays.equals(viaText, keys(rs.getArray(1))), "shortest_path()::text[]: " + Arrays.toString(viaText));
                }
            }
        }
        check(rows("SELECT shortest_path(?::regclass, ?, ?, ?)", TBL, START, "USER#nobody", PREFIX).get(0).get(0) == null,
              "shortest_path to nowhere is not NULL");
        ok("adjkey[] via getArray() (PGobject elements, toString) and ::text[] (String[]): shortest_path() to "
           + PATH_TARGETS.length + " targets");

        Map<String, Integer> depth = expectedBfs(START, PREFIX, 3, false);
        int n = 0;
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT node, depth, path FROM traverse(?::regclass, ?, ?, 3, with_path => true)")) {
            ps.setString(1, TBL);
            ps.setString(2, START);
            ps.setString(3, PREFIX);
            try (ResultSet rs = ps.executeQuery()) {
                for (; rs.next(); n++) {
                    String node = rs.getString(1);
                    check(Objects.equals(depth.get(node), rs.getInt(2)), "traverse: " + node + " at depth " + rs.getInt(2));
                    checkPath(keys(rs.getArray(3)), START, node, rs.getInt(2), out, "traverse path to " + node);
                }
            }
        }
        check(n == depth.size(), "traverse depth 3: " + n + " nodes, expected " + depth.size());
        ok("traverse(with_path => true): " + n + " paths via getArray()");
    }

    static void checkWriteApi() throws SQLException {
        String node = "USER#jdbc new";
        String[] sks = {PREFIX + TARGET, PREFIX + "USER#o\"neil", PREFIX + "USER#a b"};
        // the edges as JSON built by the server from an array parameter
        List<List<String>> r = rows("SELECT put_edges(?::regclass, (SELECT jsonb_agg(jsonb_build_object('pk', ?::text, "
                                    + "'sk', sk)) FROM unnest(?::text[]) sk))::text", TBL, node, conn.createArrayOf("text", sks));
        check(r.get(0).get(0).equals("3"), "put_edges wrote " + r.get(0).get(0) + " rows");
        List<String> want = new ArrayList<>(Arrays.asList(sks));
        want.sort(JdbcTest::byBytes);
        List<String> got = new ArrayList<>();
        for (List<String> row : rows("SELECT sk FROM " + TBL + " WHERE pk = ? AND sk = ANY(?) ORDER BY sk",
                                     node, conn.createArrayOf("adjkey", sks)))
            got.add(row.get(0));
        check(got.equals(want), "put_edges rows: " + got);
        r = rows("SELECT delete_node(?::regclass, ?, ?)::text", TBL, node, conn.createArrayOf("text", new String[] {PREFIX}));
        check(r.get(0).get(0).equals("3"), "delete_node deleted " + r.get(0).get(0) + " rows");
        check(rows("SELECT count(*)::text FROM verify_inverted_index(?::regclass)", TBL + "_inverted").get(0).get(0).equals("0"),
              "verify_inverted_index reports problems");
        ok("put_edges(jsonb from a text[] parameter), read back by = ANY(adjkey[]), delete_node(text[])");
    }

    /* query() paged by exclusive_start_key = the key (as text) of the last row */
    static int pageQuery(String tbl, String node, String prefix, boolean backward, int lim, List<String> want, String what)
        throws SQLException {
        List<String> got = new ArrayList<>();
        int pages = 0;
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT sort_key, key FROM query(?::regclass, ?, 'begins_with', ?, backward => ?, lim => ?, "
                 + "exclusive_start_key => ?)")) {
            String last = null;
            for (;;) {
                ps.setString(1, tbl);
                ps.setString(2, node);
                ps.setString(3, prefix);
                ps.setBoolean(4, backward);
                ps.setLong(5, lim);
                ps.setString(6, last);
                List<List<String>> r = rows(ps);
                pages++;
                check(r.size() <= lim, what + ": a page of " + r.size() + " rows with lim " + lim);
                for (List<String> row : r)
                    got.add(row.get(0));
                if (r.size() < lim)
                    break;
                last = r.get(r.size() - 1).get(1);
                check(pages < 1000, what + ": paging does not end");
            }
        }
        check(got.equals(want), what + ": pages " + got + ", expected " + want);
        check(pages >= 3, what + ": only " + pages + " pages");
        return pages;
    }

    static void checkQueryPaging() throws SQLException {
        List<String> sks = new ArrayList<>();
        for (Edge e : expectedOut(START, PREFIX))
            sks.add(e.sk());
        List<String> rev = new ArrayList<>(sks);
        java.util.Collections.reverse(rev);
        int n1 = pageQuery(TBL, START, PREFIX, false, LIM, sks, "query forward");
        int n2 = pageQuery(TBL, START, PREFIX, true, 3, rev, "query backward");
        int n3 = pageQuery(TBL + "_inverted", PREFIX + TARGET, "", false, 2, expectedIn(TARGET, PREFIX), "query inverted");
        ok("query(..., exclusive_start_key => last key): forward " + n1 + ", backward " + n2 + ", inverted index " + n3
           + " pages, every row once");
    }

    /* binary transfer of adjkey: binaryTransferEnable names its OID, AdjKey reads and writes the binary form */
    static void checkBinary(String url) throws SQLException {
        String oid = rows("SELECT 'adjkey'::regtype::oid::text").get(0).get(0);
        String burl = url.replace("prepareThreshold=1", "prepareThreshold=-1") + "&binaryTransferEnable=" + oid;
        String user = env("PGUSER", System.getProperty("user.name"));
        String sql = "SELECT pk, sk FROM " + TBL + " WHERE pk ^@ ?::text ORDER BY pk, sk";
        try (Connection b = DriverManager.getConnection(burl, user, env("PGPASSWORD", ""));
             PreparedStatement ps = b.prepareStatement(sql)) {
            ps.setString(1, "USER#");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                check(rs.getString(1) == null, "binary adjkey without a PGBinaryObject: getString gave " + rs.getString(1));
            }
        }
        ok("binaryTransferEnable=" + oid + " without a PGBinaryObject class: getString() of adjkey is null (pitfall)");

        Connection text = conn;
        try (Connection b = DriverManager.getConnection(burl, user, env("PGPASSWORD", ""))) {
            b.unwrap(PGConnection.class).addDataType("adjkey", AdjKey.class);
            try (PreparedStatement ps = b.prepareStatement(sql)) {
                ps.setString(1, "USER#");
                try (ResultSet rs = ps.executeQuery()) {
                    int i = 0;
                    for (; rs.next(); i++)
                        check(i < edges.size() && rs.getObject(1) instanceof AdjKey && rs.getString(1).equals(edges.get(i).pk())
                              && rs.getString(2).equals(edges.get(i).sk()), "binary row " + i + ": " + rs.getString(2));
                    check(i == edges.size(), "binary: " + i + " rows, expected " + edges.size());
                }
            }
            try (PreparedStatement ps = b.prepareStatement("SELECT sk FROM " + TBL + " WHERE pk = ? AND sk = ?")) {
                ps.setObject(1, new AdjKey(START));
                ps.setObject(2, new AdjKey(PREFIX + "USER#中文"));
                check(rows(ps).equals(List.of(List.of(PREFIX + "USER#中文"))), "binary AdjKey parameters");
            }
            check("22P03".equals(sqlState(b, "SELECT ?", new BadAdjKey(START))), "AdjKey parameters are not sent in binary");
            ok("AdjKey (PGBinaryObject) via addDataType: binary results and binary parameters (version 2: 22P03)");
            conn = b;
            checkPaging("_b", true);
        } finally {
            conn = text;
        }
    }

    static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    public static void main(String[] args) throws Exception {
        try {
            readEdges(args.length > 0 ? args[0] : "edges.tsv");
            String host = env("JDBC_HOST", env("PGHOST", "127.0.0.1"));
            if (host.startsWith("/"))
                host = "127.0.0.1";
            String url = "jdbc:postgresql://" + host + ":" + env("PGPORT", "5432") + "/" + env("PGDATABASE", "postgres")
                + "?prepareThreshold=1&stringtype=unspecified&ApplicationName=adjlist-jdbc-test";
            conn = DriverManager.getConnection(url, env("PGUSER", System.getProperty("user.name")), env("PGPASSWORD", ""));
            conn.setAutoCommit(true);
            System.out.println("# java " + System.getProperty("java.version") + ", pgjdbc "
                               + conn.getMetaData().getDriverVersion() + ", server "
                               + conn.getMetaData().getDatabaseProductVersion() + ", " + url);
            setup();
            checkText();
            checkPaging("_a", false);
            checkPaging("_g", true);
            checkParams(url);
            checkQueryPaging();
            checkArrays();
            checkWriteApi();
            checkBinary(url);
            checkReverse();
            checkTraverse(START, "out", false);
            checkTraverse(TARGET, "in", true);
            checkCopy();
            conn.close();
            System.out.println("# " + nchecks + " checks passed");
        } catch (Fail e) {
            System.err.println("FAIL: " + e.getMessage());
            System.exit(1);
        } catch (Exception e) {
            e.printStackTrace();
            System.err.println("FAIL: " + e);
            System.exit(1);
        }
    }
}
