package io.fabricpulse.streams.order;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class BufferedRatesSerdeTest {

  private final DetectorSerdes serdes =
      DetectorSerdes.forRegistry("mock://" + BufferedRatesSerdeTest.class.getName());
  private final BufferedRatesSerde serde =
      new BufferedRatesSerde(
          serdes.value(NodeRates.class),
          serdes.rates(),
          serdes.oneOf(List.of(NodeRates.class, CounterRates.class)));

  @Test
  void aWholeNodeRecordComesBackWithItsHeaders() {
    NodeRates node = NodeRecords.ofRates(List.of(port("mlx5_0"), port("mlx5_1")));
    RecordHeaders headers = new RecordHeaders();
    headers.add("fabricpulse.input.offset", "42".getBytes(StandardCharsets.UTF_8));
    byte[] bytes = serde.serializer().serialize("t", new BufferedRates(node, headers));
    assertEquals(2, bytes[0], "version 2");

    BufferedRates back = serde.deserializer().deserialize("t", bytes);
    assertEquals(node, back.record());
    assertArrayEquals(headers.toArray(), back.headers().toArray());
    assertEquals("c1/gpu001", back.node());
    assertEquals(1_000L, back.intervalMs());
  }

  @Test
  void aPortEntryBufferedBeforeTheUpgradeIsStillReleased() throws Exception {
    CounterRates port = port("mlx5_3");
    byte[] record = serdes.rates().serializer().serialize("t", port);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1); // the layout of version 1: no header, then the record
    out.writeShort(0);
    out.writeInt(record.length);
    out.write(record);

    BufferedRates back = serde.deserializer().deserialize("t", bytes.toByteArray());
    assertEquals(port, back.record());
    assertEquals(1_000L, back.time());
  }

  @Test
  void anUnknownVersionIsRefusedByName() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> serde.deserializer().deserialize("t", new byte[] {3, 0, 0}));
    assertEquals("unknown buffered rates version 3", e.getMessage());
  }

  static CounterRates port(String device) {
    return CounterRates.newBuilder()
        .setCluster("c1")
        .setNode("gpu001")
        .setBootId("boot-1")
        .setSeq(7)
        .setTime(Instant.ofEpochMilli(1_000L))
        .setIntervalMs(1_000L)
        .setSource(RateSource.PORT)
        .setDevice(device)
        .setPort(1)
        .setRates(List.of())
        .build();
  }
}
