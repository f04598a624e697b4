package io.fabricpulse.app.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.app.testing.FaultScenario;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.schemas.SampleRecords;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * CEL predicates over the rows of every topic, on the records of the seeded fault scenario (the
 * demo's simulated cluster through the whole topology): each expression must select exactly the
 * rows the same condition written in Java selects, and at least one; bad expressions are refused
 * with their position before anything is read.
 */
class WhereClauseTest {
  private static final FabricTopics TOPICS = FabricTopics.defaults();
  private static FaultScenario scenario;

  @BeforeAll
  static void scenario() throws Exception {
    scenario = FaultScenario.seeded();
  }

  @Test
  void ratesByNodeAndPauseRatio() throws Exception {
    assertSelects(
        TOPICS.rates(),
        "node.startsWith(\"gpu00\") && pause_ratio > 0.5",
        row ->
            row.get("node").toString().startsWith("gpu00")
                && row.containsKey("pause_ratio")
                && (Double) row.get("pause_ratio") > 0.5);
    assertSelects(
        TOPICS.rates(),
        "has(rates.port_xmit_data) && rates[\"port_xmit_data\"] > 1e10",
        row -> rate(row, "port_xmit_data") > 1e10);
  }

  @Test
  void rawCountersByCounterValue() throws Exception {
    assertSelects(
        TOPICS.portCounters(),
        "device == \"mlx5_2\" && \"symbol_error\" in counters && counters[\"symbol_error\"] > 0",
        row ->
            "mlx5_2".equals(row.get("device"))
                && counters(row).containsKey("symbol_error")
                && (Long) counters(row).get("symbol_error") > 0);
    assertSelects(
        TOPICS.pfc(),
        "netdev == \"ens9f0np0\" && node == \"gpu007\"",
        row -> "ens9f0np0".equals(row.get("netdev")) && "gpu007".equals(row.get("node")));
    assertSelects(TOPICS.ecn(), "node == \"gpu011\"", row -> "gpu011".equals(row.get("node")));
  }

  @Test
  void everyOtherRecordType() throws Exception {
    assertSelects(
        TOPICS.gpu(),
        "temperature_gpu >= 45 && gpu == 0",
        row ->
            row.containsKey("temperature_gpu")
                && (Long) row.get("temperature_gpu") >= 45
                && (Long) row.get("gpu") == 0);
    assertSelects(TOPICS.xid(), "xid == 48", row -> Long.valueOf(48).equals(row.get("xid")));
    assertSelects(
        TOPICS.nccl(),
        "message.contains(\"GPU Direct RDMA Disabled\")",
        row -> row.get("message").toString().contains("GPU Direct RDMA Disabled"));
    assertSelects(TOPICS.sm(), "node == \"sm01\"", row -> "sm01".equals(row.get("node")));
    assertSelects(
        TOPICS.alerts(),
        "kind == \"PAUSE_STORM\" && state == \"FIRING\" && labels[\"team\"] == \"fabric\"",
        row -> "PAUSE_STORM".equals(row.get("kind")) && "FIRING".equals(row.get("state")));
    assertSelects(
        TOPICS.ncclTransport(), "gdr == false", row -> Boolean.FALSE.equals(row.get("gdr")));
    assertSelects(
        TOPICS.deadLetters(), "reason != \"\"", row -> !row.get("reason").toString().isEmpty());
    long start = FaultScenario.START.plusSeconds(30).getEpochSecond();
    assertSelects(
        TOPICS.rates(),
        "time > timestamp(\"" + FaultScenario.START.plusSeconds(30) + "\") && node == \"gpu001\"",
        row ->
            ((Timestamp) row.get("time")).getSeconds() > start && "gpu001".equals(row.get("node")));
  }

  /**
   * The fabric side's record types (the scenario has none): links, link changes, ibdiagnet
   * findings, a switch's perfquery counters, and an open alert, from the schemas' sample records
   * with a variant each that must not match.
   */
  @Test
  void theFabricSideRecordTypesAndTheOpenAlerts() throws Exception {
    FabricLink link = SampleRecords.fabricLink();
    FabricLink other = FabricLink.newBuilder(link).setSource(TopologySource.IBNETDISCOVER).build();
    other.setPossibleWidth(null);
    assertSelects(
        TOPICS.topology(),
        List.of(link, other),
        "source == \"IBLINKINFO\" && possible_width == 12 && link_id.startsWith(\"h100-a/\")",
        row -> "IBLINKINFO".equals(row.get("source")));
    FabricLinkChange change = SampleRecords.fabricLinkChange();
    FabricLinkChange appeared =
        FabricLinkChange.newBuilder(change).setChange(LinkChangeKind.APPEARED).build();
    assertSelects(
        TOPICS.topologyChanges(),
        List.of(change, appeared),
        "change == \"RENEGOTIATED\" && time - previous_time == duration(\"60s\")",
        row -> "RENEGOTIATED".equals(row.get("change")));
    FabricFindings findings = SampleRecords.fabricFindings();
    FabricFindings elsewhere = FabricFindings.newBuilder(findings).setObservedBy("sm02").build();
    assertSelects(
        TOPICS.ibdiagnet(),
        List.of(findings, elsewhere),
        "observed_by == \"sm01\" && source_file.endsWith(\"ibdiagnet2.log\")",
        row -> "sm01".equals(row.get("observed_by")));
    NodeCounters leaf =
        NodeCounters.newBuilder(SampleRecords.nodeCounters())
            .setNode("leaf01")
            .setSource(RateSource.PERFQUERY)
            .build();
    assertSelects(
        TOPICS.switchCounters(),
        List.of(leaf),
        "node == \"leaf01\" && device == \"mlx5_1\" && counters[\"symbol_error\"] > 0",
        row -> "mlx5_1".equals(row.get("device")));
    Alert open =
        Alert.newBuilder(SampleRecords.alert())
            .setState(AlertState.FIRING)
            .setResolvedAt(null)
            .build();
    Alert warning = Alert.newBuilder(open).setSeverity(Severity.WARNING).build();
    assertSelects(
        TOPICS.alertsActive(),
        List.of(open, warning),
        "severity == \"" + open.getSeverity() + "\" && state == \"FIRING\"",
        row -> open.getSeverity().name().equals(row.get("severity")));
  }

  /**
   * {@link #assertSelects} over {@code records} (of {@code topic}'s type) instead of the scenario.
   */
  private static void assertSelects(
      TopicSpec topic,
      List<? extends SpecificRecord> records,
      String expression,
      Predicate<Map<String, Object>> expected)
      throws WhereClause.BadExpression {
    QueryVariables variables = QueryVariables.forTopic(topic);
    WhereClause where = WhereClause.compile(expression, variables);
    long matched = 0;
    long rows = 0;
    for (SpecificRecord record : records) {
      for (Map<String, Object> row : variables.rows(record)) {
        boolean want = expected.test(row);
        assertEquals(want, where.matches(row), expression + " on " + row);
        matched += want ? 1 : 0;
        rows++;
      }
    }
    assertTrue(matched > 0 && matched < rows, expression + ": " + matched + " of " + rows);
  }

  @Test
  void aBadExpressionNamesItsPosition() {
    QueryVariables rates = QueryVariables.forTopic(TOPICS.rates());
    WhereClause.BadExpression syntax =
        assertThrows(
            WhereClause.BadExpression.class,
            () -> WhereClause.compile("node.startsWith(\"gpu1\") &&& pause_ratio > 0.5", rates));
    assertTrue(syntax.getMessage().contains("--where:1:"), syntax.getMessage());
    WhereClause.BadExpression unknown =
        assertThrows(
            WhereClause.BadExpression.class, () -> WhereClause.compile("nod == \"gpu1\"", rates));
    assertTrue(
        unknown.getMessage().contains("--where:1:1") && unknown.getMessage().contains("nod"),
        unknown.getMessage());
    WhereClause.BadExpression notBool =
        assertThrows(
            WhereClause.BadExpression.class, () -> WhereClause.compile("pause_ratio + 1.0", rates));
    assertTrue(notBool.getMessage().contains("--where:1:"), notBool.getMessage());
  }

  @Test
  void theCommandRefusesABadExpressionBeforeConnecting() {
    // 127.0.0.1:9 answers nothing: reaching Kafka would hang, not end in a position
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = FabricPulse.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit =
        cli.execute(
            "query",
            "--bootstrap-servers",
            "127.0.0.1:9",
            "--schema-registry-url",
            "mock://where-clause-test",
            "--topic",
            "fabric.rates",
            "--where",
            "node.startsWith(\"gpu1\") && pause_ratio >");
    assertEquals(2, exit, err.toString());
    assertTrue(err.toString().startsWith("ERROR: --where:1:"), err.toString());
    assertEquals("", out.toString());
  }

  /** The expression selects exactly the rows {@code expected} selects, and at least one. */
  private static void assertSelects(
      TopicSpec topic, String expression, Predicate<Map<String, Object>> expected)
      throws WhereClause.BadExpression {
    QueryVariables variables = QueryVariables.forTopic(topic);
    WhereClause where = WhereClause.compile(expression, variables);
    List<Map<String, Object>> rows = rows(topic, variables);
    assertFalse(rows.isEmpty(), topic.name() + " has rows");
    long matched = 0;
    for (Map<String, Object> row : rows) {
      boolean want = expected.test(row);
      assertEquals(want, where.matches(row), expression + " on " + row);
      matched += want ? 1 : 0;
    }
    assertTrue(matched > 0, expression + " selects some of " + rows.size() + " rows");
  }

  private static List<Map<String, Object>> rows(TopicSpec topic, QueryVariables variables) {
    Map<String, Object> config = Map.of("schema.registry.url", FaultScenario.REGISTRY);
    Deserializer<? extends SpecificRecord> values;
    if (topic.valueType() == io.fabricpulse.avro.NodeCounters.class) {
      values =
          AvroOneOfDeserializer.forValues(List.of(io.fabricpulse.avro.NodeCounters.class), config);
    } else {
      AvroDeserializer<? extends SpecificRecord> plain = new AvroDeserializer<>(topic.valueType());
      plain.configure(config, false);
      values = plain;
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ProducerRecord<String, byte[]> r : scenario.records) {
      if (!r.topic().equals(topic.name()) || r.value() == null) {
        continue;
      }
      SpecificRecord value;
      try {
        value = values.deserialize(r.topic(), r.value());
      } catch (RuntimeException corrupt) {
        continue; // the scenario's one corrupt raw record
      }
      if (value != null) {
        rows.addAll(variables.rows(value));
      }
    }
    return rows;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> counters(Map<String, Object> row) {
    return (Map<String, Object>) row.get("counters");
  }

  @SuppressWarnings("unchecked")
  private static double rate(Map<String, Object> row, String counter) {
    Object v = ((Map<String, Object>) row.get("rates")).get(counter);
    return v == null ? -1 : (Double) v;
  }
}
