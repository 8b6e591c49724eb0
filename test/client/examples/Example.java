// adjlist from JDBC (Debian: libpostgresql-jdbc-java), on the graph of Getting started:
//   PGUSER=me PGPASSWORD=... java -cp /usr/share/java/postgresql.jar Example.java localhost:5432/mydb
import java.sql.*;
import java.util.*;

public class Example {
    public static void main(String[] args) throws SQLException {
        // stringtype=unspecified: setString sends strings untyped, so they become adjkeys
        String url = "jdbc:postgresql://" + args[0] + "?stringtype=unspecified";
        try (Connection conn = DriverManager.getConnection(url, System.getenv("PGUSER"), System.getenv("PGPASSWORD"))) {
            // parameters
            expect(column(conn, "SELECT neighbor FROM neighbors('graph', ?, ?)", "USER#alice", "FRIEND#"),
                   List.of("USER#bob", "USER#charlie"));

            // arrays of keys: createArrayOf("adjkey", ...) in, getArray() out
            expect(column(conn, "SELECT data->>'name' FROM graph WHERE pk = ANY(?) AND sk = 'PROFILE' ORDER BY pk",
                          conn.createArrayOf("adjkey", new String[] {"USER#alice", "USER#bob"})),
                   List.of("Alice Wonderland", "Bob Builder"));
            try (PreparedStatement ps = conn.prepareStatement("SELECT shortest_path('graph', ?, ?, 'FRIEND#')")) {
                ps.setString(1, "USER#alice");
                ps.setString(2, "USER#charlie");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    expect(keys(rs.getArray(1)), List.of("USER#alice", "USER#charlie"));
                }
            }

            // paging: pass the last row's key back as exclusive_start_key
            List<String> items = new ArrayList<>();
            try (PreparedStatement ps = conn.prepareStatement(
                     "SELECT sort_key, key::text FROM query('graph', ?, lim => 2, exclusive_start_key => ?)")) {
                String last = null;
                for (;;) {
                    ps.setString(1, "USER#alice");
                    ps.setString(2, last);
                    int n = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        for (; rs.next(); n++) {
                            items.add(rs.getString(1));
                            last = rs.getString(2);
                        }
                    }
                    if (n < 2)
                        break;
                }
            }
            expect(items, List.of("FOLLOWS#USER#bob", "FRIEND#USER#bob", "FRIEND#USER#charlie", "LIKES#POST#777", "PROFILE"));
        }
    }

    // the one-line setup: adjkey[]'s elements are PGobjects, whose toString() is the key
    static List<String> keys(java.sql.Array a) throws SQLException {
        return Arrays.stream((Object[]) a.getArray()).map(Object::toString).toList();
    }

    static List<String> column(Connection conn, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++)
                ps.setObject(i + 1, params[i]);
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next())
                    out.add(rs.getString(1));
            }
            return out;
        }
    }

    static void expect(List<String> got, List<String> want) {
        if (!got.equals(want))
            throw new AssertionError(got + ", expected " + want);
    }
}
