package io.fabricpulse.app.interactive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The query API's answers as text tables, one row per line, columns aligned. */
public final class ApiTables {

  private ApiTables() {}

  /**
   * The table of {@code query}'s rows ({@code rates}, {@code top}, {@code alerts}, {@code nccl}).
   */
  public static List<String> render(String query, Map<String, Object> body) {
    List<Map<String, Object>> rows = rows(body);
    List<List<String>> table = new ArrayList<>();
    switch (query) {
      case "rates" -> {
        table.add(List.of("NODE", "PORT", "NETDEV", "SOURCE", "TIME", "COUNTER", "PER_S", "DELTA"));
        for (Map<String, Object> r : rows) {
          Map<String, Object> rates = map(r.get("rates"));
          Map<String, Object> deltas = map(r.get("deltas"));
          for (Map.Entry<String, Object> rate : new TreeMap<>(rates).entrySet()) {
            table.add(
                List.of(
                    node(r),
                    Rows.portName(r),
                    text(r.get("netdev")),
                    text(r.get("source")),
                    text(r.get("time")),
                    rate.getKey(),
                    number(rate.getValue()),
                    text(deltas.get(rate.getKey()))));
          }
        }
      }
      case "top" -> {
        table.add(
            List.of(
                "#",
                "NODE",
                "PORT",
                "NETDEV",
                "SOURCE",
                "TIME",
                text(body.get("by")).toUpperCase()));
        int rank = 1;
        for (Map<String, Object> r : rows) {
          table.add(
              List.of(
                  Integer.toString(rank++),
                  node(r),
                  Rows.portName(r),
                  text(r.get("netdev")),
                  text(r.get("source")),
                  text(r.get("time")),
                  number(r.get("value"))));
        }
      }
      case "alerts" -> {
        table.add(List.of("STARTED", "SEVERITY", "KIND", "NODE", "WHERE", "SUMMARY"));
        for (Map<String, Object> r : rows) {
          table.add(
              List.of(
                  text(r.get("started_at")),
                  text(r.get("severity")),
                  text(r.get("kind")),
                  node(r),
                  where(r),
                  text(r.get("summary"))));
        }
      }
      case "nccl" -> {
        table.add(List.of("HOST", "JOB", "NET", "GDR", "COMM_ID", "NCCL", "CHANGED", "ERRORS"));
        for (Map<String, Object> r : rows) {
          table.add(
              List.of(
                  text(r.get("host")),
                  text(r.get("job")),
                  text(r.get("net")),
                  text(r.get("gdr")),
                  text(r.get("comm_id")),
                  text(r.get("nccl_version")),
                  text(r.get("time")),
                  text(r.get("completion_errors"))));
        }
      }
      default -> throw new IllegalArgumentException("no table for " + query);
    }
    return aligned(table);
  }

  /** Which instances answered, with their store's offset lag, and which did not: one line. */
  public static String instances(Map<String, Object> body) {
    List<String> answered = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    if (body.get("instances") instanceof List<?> list) {
      for (Object o : list) {
        Map<String, Object> i = map(o);
        if (Boolean.TRUE.equals(i.get("answered"))) {
          answered.add(i.get("instance") + " (offset lag " + i.get("offset_lag") + ")");
        } else {
          missing.add(i.get("instance") + " (" + i.get("error") + ")");
        }
      }
    }
    String line =
        "answered by " + (answered.isEmpty() ? "no instance" : String.join(", ", answered));
    if (body.get("routed_to") != null) {
      line += "; key owned by " + body.get("routed_to") + ", partition " + body.get("partition");
    }
    if (!missing.isEmpty()) {
      line += "; NOT answered: " + String.join(", ", missing);
    }
    return line;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> rows(Map<String, Object> body) {
    return body.get("rows") instanceof List<?> l ? (List<Map<String, Object>>) l : List.of();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static String node(Map<String, Object> r) {
    return r.get("cluster") + "/" + text(r.get("node"));
  }

  private static String where(Map<String, Object> r) {
    List<String> parts = new ArrayList<>();
    if (r.get("device") != null) {
      parts.add(r.get("device") + (r.get("port") != null ? "/" + r.get("port") : ""));
    }
    for (String field : List.of("netdev", "priority", "gpu", "job")) {
      if (r.get(field) != null) {
        parts.add(("netdev".equals(field) ? "" : field + " ") + r.get(field));
      }
    }
    return parts.isEmpty() ? "-" : String.join(" ", parts);
  }

  private static String text(Object o) {
    return o == null ? "-" : o.toString();
  }

  private static String number(Object o) {
    if (o instanceof Number n) {
      double d = n.doubleValue();
      return d == Math.rint(d) && Math.abs(d) < 1e15
          ? Long.toString((long) d)
          : String.format(java.util.Locale.ROOT, "%.4g", d);
    }
    return text(o);
  }

  private static List<String> aligned(List<List<String>> table) {
    int columns = table.get(0).size();
    int[] width = new int[columns];
    for (List<String> row : table) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], row.get(c).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (List<String> row : table) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        line.append(
            c == columns - 1 ? row.get(c) : String.format("%-" + width[c] + "s  ", row.get(c)));
      }
      lines.add(line.toString().stripTrailing());
    }
    return lines;
  }
}
