package io.fabricpulse.app.dashboards;

import io.fabricpulse.sinks.influx.InfluxSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the names in a dashboard's InfluxQL statement against what the sink writes, and keeps the
 * statements to the InfluxQL subset InfluxDB 3 runs (SLIMIT, SOFFSET, INTEGRAL, SAMPLE, the
 * technical-analysis functions such as HOLT_WINTERS, SHOW SERIES and SHOW DATABASES are not
 * implemented there:
 * https://docs.influxdata.com/influxdb3/core/reference/influxql/feature-support/).
 *
 * <p>The dashboards write every measurement, field and tag as a double-quoted identifier; the
 * statement is split into string literals, regex literals, quoted identifiers, template variables,
 * numbers and words, and every word must be an InfluxQL keyword or function of the allowed subset,
 * so an unquoted (unchecked) name fails too.
 */
final class InfluxQlNames {

  private static final Set<String> KEYWORDS =
      Set.of(
          "select",
          "from",
          "where",
          "and",
          "or",
          "group",
          "by",
          "as",
          "fill",
          "none",
          "null",
          "previous",
          "linear",
          "time",
          "order",
          "desc",
          "asc",
          "limit",
          "show",
          "tag",
          "values",
          "with",
          "key",
          "not",
          "tz");

  private static final Set<String> FUNCTIONS =
      Set.of(
          "mean",
          "median",
          "max",
          "min",
          "last",
          "first",
          "count",
          "sum",
          "spread",
          "distinct",
          "percentile",
          "top",
          "bottom",
          "derivative",
          "non_negative_derivative",
          "difference",
          "non_negative_difference",
          "moving_average",
          "cumulative_sum",
          "elapsed",
          "abs",
          "round",
          "ceil",
          "floor");

  private static final Pattern TOKEN =
      Pattern.compile(
          "'(?:[^'\\\\]|\\\\.)*'" // string literal
              + "|(?<=~\\s{0,4})/(?:[^/\\\\]|\\\\.)+/" // regex literal (after =~ or !~)
              + "|\"([^\"]+)\"" // quoted identifier
              + "|\\$\\{?[A-Za-z_]+\\}?" // template variable
              + "|\\d+(?:\\.\\d+)?(?:ms|s|m|h|d|w|u|ns)?" // number or duration
              + "|([A-Za-z_][A-Za-z0-9_]*)" // word
              + "|([(),*=<>!~+\\-/.;])" // punctuation
              + "|\\s+");

  private InfluxQlNames() {}

  /**
   * Problems of one statement: empty when it names only what {@code written} holds (measurement ->
   * its field and tag names) and stays in the InfluxDB 3 subset.
   */
  static List<String> problems(String influxql, Map<String, Set<String>> written) {
    List<String> problems = new ArrayList<>();
    List<String> identifiers = new ArrayList<>();
    List<Boolean> aliased = new ArrayList<>();
    String measurement = null;
    String previousWord = "";
    Matcher m = TOKEN.matcher(influxql);
    int at = 0;
    while (at < influxql.length()) {
      if (!m.find(at) || m.start() != at) {
        problems.add("cannot read the statement at '" + influxql.substring(at) + "'");
        return problems;
      }
      at = m.end();
      if (m.group(1) != null) {
        if (previousWord.equals("from")) {
          measurement = m.group(1);
        } else {
          identifiers.add(m.group(1));
          aliased.add(previousWord.equals("as"));
        }
        previousWord = "";
      } else if (m.group(2) != null) {
        String word = m.group(2).toLowerCase(Locale.ROOT);
        if (!KEYWORDS.contains(word) && !FUNCTIONS.contains(word)) {
          problems.add(
              "'" + m.group(2) + "' is neither an allowed keyword or function nor a quoted name");
        }
        previousWord = word;
      } else if (m.group(3) != null && m.group(3).equals("(") && previousWord.equals("from")) {
        problems.add("subqueries are not used (InfluxDB 3 support is partial)");
      }
    }
    if (measurement == null) {
      problems.add("no FROM \"measurement\"");
      return problems;
    }
    if (!InfluxSchema.MEASUREMENTS.contains(measurement)) {
      problems.add("measurement " + measurement + " is not one the sink writes (InfluxSchema)");
      return problems;
    }
    Set<String> known = written.get(measurement);
    if (known == null) {
      problems.add("the sink wrote nothing to " + measurement + " in the scenario");
      return problems;
    }
    for (int i = 0; i < identifiers.size(); i++) {
      if (!aliased.get(i) && !known.contains(identifiers.get(i))) {
        problems.add(
            measurement
                + " has no field or tag '"
                + identifiers.get(i)
                + "' in what the sink wrote");
      }
    }
    return problems;
  }
}
