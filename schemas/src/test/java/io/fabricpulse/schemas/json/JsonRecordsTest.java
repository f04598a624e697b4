package io.fabricpulse.schemas.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.schemas.SampleRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JsonRecordsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static List<SpecificRecord> everyRecordType() {
    return SampleRecords.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyRecordType")
  void roundTripOfEveryRecordType(SpecificRecord record) throws Exception {
    String line = JsonRecords.toJson(record);

    assertFalse(line.contains("\n"));
    assertEquals(record, JsonRecords.fromJson(line));
    assertEquals(record, JsonRecords.fromJson(line, record.getClass()));

    // "type" first, then the non-null fields by Avro name in schema order.
    List<String> expectedKeys = new ArrayList<>(List.of("type"));
    for (Schema.Field f : record.getSchema().getFields()) {
      if (record.get(f.pos()) != null) {
        expectedKeys.add(f.name());
      }
    }
    List<String> keys = new ArrayList<>();
    JSON.readTree(line).fieldNames().forEachRemaining(keys::add);
    assertEquals(expectedKeys, keys);
    assertEquals(record.getSchema().getName(), JSON.readTree(line).get("type").asText());
  }

  @Test
  void exactLineOfAnXidEvent() {
    assertEquals(
        "{\"type\":\"GpuXid\",\"cluster\":\"h100-a\",\"node\":\"gpu017\","
            + "\"boot_id\":\"8c3b1f4e-2f0a-4d7e-9a53-0d6c2b7e91aa\",\"seq\":5,"
            + "\"time\":\"2025-03-10T06:06:02.511Z\",\"pci_bus_id\":\"0000:10:1c\",\"gpu\":3,"
            + "\"xid\":63,\"pid\":1896,\"kind\":\"XID\","
            + "\"message\":\"Row Remapper: New row marked for remapping, reset gpu to activate.\","
            + "\"raw_line\":\"NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row"
            + " marked for remapping, reset gpu to activate.\"}",
        JsonRecords.toJson(SampleRecords.gpuXid()));
  }

  @Test
  void nestedRecordsNullCountersBytesAndTimestamps() throws Exception {
    JsonNode port = JSON.readTree(JsonRecords.toJson(SampleRecords.portCounters()));
    JsonNode noPma = port.get("counters").get(5);
    assertEquals(
        "{\"name\":\"port_rcv_data\",\"group\":\"COUNTERS\",\"width\":64,"
            + "\"unavailable\":\"N/A (no PMA)\"}",
        noPma.toString());
    assertEquals(-1L, port.get("counters").get(0).get("value").longValue());
    assertFalse(port.has("netdev_speed_mbps") && port.get("netdev_speed_mbps").isNull());

    JsonNode dead = JSON.readTree(JsonRecords.toJson(SampleRecords.deadLetter()));
    assertEquals("aDEwMC1hL2dwdTAxNw==", dead.get("key").asText()); // "h100-a/gpu017"
    assertEquals("BwAAAAH/ABA=", dead.get("value").asText());

    JsonNode alert = JSON.readTree(JsonRecords.toJson(SampleRecords.alert()));
    assertEquals("2025-03-10T06:08:02Z", alert.get("resolved_at").asText());
    assertEquals("900000 us/s", alert.get("evidence").get("rx_prio3_pause_duration").asText());
    assertFalse(alert.has("gpu"));
  }

  @Test
  void missingFieldsTakeNullOrTheirDefault() {
    Alert alert =
        JsonRecords.fromJson(
            "{\"type\":\"Alert\",\"alert_id\":\"a1\",\"rule\":\"r\",\"kind\":\"LINK_FLAP\","
                + "\"severity\":\"WARNING\",\"state\":\"FIRING\",\"cluster\":\"c\","
                + "\"started_at\":\"2025-03-10T06:06:02Z\",\"summary\":\"s\"}",
            Alert.class);
    assertNull(alert.getNode());
    assertNull(alert.getResolvedAt());
    assertEquals(Map.of(), alert.getEvidence());
    alert.getLabels().put("added", "later"); // the default is a fresh, mutable copy
    Alert other =
        (Alert)
            JsonRecords.fromJson(
                "{\"type\":\"Alert\",\"alert_id\":\"a2\",\"rule\":\"r\",\"kind\":\"LINK_FLAP\","
                    + "\"severity\":\"WARNING\",\"state\":\"FIRING\",\"cluster\":\"c\","
                    + "\"started_at\":\"2025-03-10T06:06:02Z\",\"summary\":\"s\"}");
    assertEquals(Map.of(), other.getLabels());

    PortCounters port = SampleRecords.portCounters();
    String line = JsonRecords.toJson(port).replaceFirst(",\"read_errors\":\\[[^]]*]", "");
    assertFalse(line.contains("read_errors"));
    assertEquals(List.of(), JsonRecords.fromJson(line, PortCounters.class).getReadErrors());

    // Keys the record does not know (e.g. written by a newer version) are ignored.
    assertEquals(
        SampleRecords.gpuXid(),
        JsonRecords.fromJson(
            JsonRecords.toJson(SampleRecords.gpuXid())
                .replace("{\"type\":\"GpuXid\",", "{\"type\":\"GpuXid\",\"fw\":\"x\",")));
  }

  @Test
  void nonFiniteDoublesRoundTrip() {
    CounterRates rates =
        CounterRates.newBuilder(SampleRecords.counterRates())
            .setRates(
                List.of(
                    CounterRate.newBuilder()
                        .setName("port_xmit_wait")
                        .setPerSecond(Double.NaN)
                        .setUnit("ticks")
                        .setTag(RateTag.normal)
                        .build()))
            .build();
    CounterRates back = JsonRecords.fromJson(JsonRecords.toJson(rates), CounterRates.class);
    assertTrue(Double.isNaN(back.getRates().get(0).getPerSecond()));
  }

  @Test
  void badInputNamesTheField() {
    String xid = JsonRecords.toJson(SampleRecords.gpuXid());
    String port = JsonRecords.toJson(SampleRecords.portCounters());

    assertError(
        "GpuXid.raw_line: missing, but it is required",
        xid.replaceFirst(",\"raw_line\":\"[^\"]*\"", ""));
    assertError(
        "GpuXid.cluster: null, but it is required",
        xid.replace("\"cluster\":\"h100-a\"", "\"cluster\":null"));
    assertError(
        "GpuXid.xid: expected a 32-bit integer, got \"63\"",
        xid.replace("\"xid\":63", "\"xid\":\"63\""));
    assertError(
        "GpuXid.kind: expected one of [XID, FALLEN_OFF_BUS], got \"Xid\"",
        xid.replace("\"kind\":\"XID\"", "\"kind\":\"Xid\""));
    assertError(
        "GpuXid.time: expected an ISO-8601 UTC timestamp",
        xid.replace("2025-03-10T06:06:02.511Z", "10 Mar 2025"));
    assertError(
        "PortCounters.counters[1].value: expected a 64-bit integer, got 3599.5",
        port.replace("\"value\":3599", "\"value\":3599.5"));
    assertError(
        "type: unknown record type \"Gpu\"",
        xid.replace("\"type\":\"GpuXid\"", "\"type\":\"Gpu\""));
    assertError("type: missing", xid.replace("\"type\":\"GpuXid\",", ""));
    assertError("not JSON", "{\"type\":");
    assertError("expected one JSON object per line", "[1,2]");
    IllegalArgumentException wrongClass =
        assertThrows(
            IllegalArgumentException.class, () -> JsonRecords.fromJson(xid, DeadLetter.class));
    assertTrue(
        wrongClass.getMessage().startsWith("type: expected \"DeadLetter\""),
        wrongClass.getMessage());
  }

  private static void assertError(String expectedStart, String line) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> JsonRecords.fromJson(line));
    assertTrue(e.getMessage().startsWith(expectedStart), e.getMessage());
  }

  @Test
  void typeAbsentIsAllowedWhenTheClassIsGiven() {
    String line = JsonRecords.toJson(SampleRecords.gpuXid()).replace("\"type\":\"GpuXid\",", "");
    assertEquals(SampleRecords.gpuXid(), JsonRecords.fromJson(line, GpuXid.class));
  }
}
