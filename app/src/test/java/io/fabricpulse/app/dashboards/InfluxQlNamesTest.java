package io.fabricpulse.app.dashboards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InfluxQlNamesTest {

  private static final Map<String, Set<String>> WRITTEN =
      Map.of("fabric_port_rates", Set.of("cluster", "node", "symbol_error_delta"));

  @Test
  void aStatementNamingWrittenFieldsAndTagsPasses() {
    assertEquals(
        List.of(),
        InfluxQlNames.problems(
            "SELECT sum(\"symbol_error_delta\") AS \"errors\" FROM \"fabric_port_rates\" WHERE"
                + " \"cluster\" =~ /^$cluster$/ AND $timeFilter GROUP BY time($__interval),"
                + " \"node\" fill(none)",
            WRITTEN));
  }

  @Test
  void aDivisionIsNoRegexAndTheNamesAfterItAreStillChecked() {
    assertEquals(
        List.of("fabric_port_rates has no field or tag 'nodes' in what the sink wrote"),
        InfluxQlNames.problems(
            "SELECT sum(\"symbol_error_delta\") * 64 / (sum(\"symbol_error_delta\") + 1)"
                + " FROM \"fabric_port_rates\" WHERE \"cluster\" =~ /^$cluster$/ AND"
                + " \"nodes\" !~ /^x$/",
            WRITTEN));
  }

  @Test
  void anUnknownFieldAnUnquotedNameAndAnUnknownMeasurementAreProblems() {
    assertEquals(
        List.of("fabric_port_rates has no field or tag 'symbol_errors' in what the sink wrote"),
        InfluxQlNames.problems(
            "SELECT sum(\"symbol_errors\") FROM \"fabric_port_rates\" WHERE $timeFilter", WRITTEN));
    assertTrue(
        InfluxQlNames.problems(
                "SELECT sum(symbol_error_delta) FROM \"fabric_port_rates\" WHERE $timeFilter",
                WRITTEN)
            .get(0)
            .contains("'symbol_error_delta' is neither"));
    assertTrue(
        InfluxQlNames.problems("SELECT \"x\" FROM \"fabric_ports\"", WRITTEN)
            .get(0)
            .contains("not one the sink writes"));
  }

  @Test
  void whatInfluxDb3DoesNotRunIsAProblem() {
    assertTrue(
        InfluxQlNames.problems(
                "SELECT integral(\"symbol_error_delta\") FROM \"fabric_port_rates\"", WRITTEN)
            .get(0)
            .contains("'integral'"));
    assertTrue(
        InfluxQlNames.problems(
                "SELECT last(\"symbol_error_delta\") FROM \"fabric_port_rates\" GROUP BY \"node\""
                    + " SLIMIT 5",
                WRITTEN)
            .get(0)
            .contains("'SLIMIT'"));
    assertTrue(
        InfluxQlNames.problems(
                "SELECT max(\"m\") FROM (SELECT mean(\"symbol_error_delta\") AS \"m\" FROM"
                    + " \"fabric_port_rates\")",
                WRITTEN)
            .get(0)
            .contains("subqueries"));
  }
}
